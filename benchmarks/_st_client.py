"""A small Streamlit client for benchmarks: it talks to a real ``streamlit run``
server over the same websocket protocol as the browser.

How a browser talks to Streamlit
--------------------------------
The page opens one websocket, ``ws://HOST:PORT/_stcore/stream`` (sub-protocol
``"streamlit"``). Every frame is one binary protobuf message from
``streamlit.proto``:

* browser → server: ``BackMsg``. The one we need is ``rerun_script``, a
  ``ClientState`` that says which page to run (``page_script_hash``, or
  ``page_name`` = the URL path when the hash is not known yet) and the value of
  every widget on the page (``widget_states``: one ``WidgetState`` per widget
  id, with the value in the field the widget uses, e.g. ``double_array_value``
  for ``st.slider``).
* server → browser: ``ForwardMsg``. One script run sends ``new_session`` (the
  run has started), then ``navigation`` (the pages of ``st.navigation``, each
  with its ``page_script_hash`` and ``url_pathname``), then one ``delta`` per
  element the script draws (``delta.new_element.slider`` carries the widget's
  id, label, min/max/step or options and default), and finally
  ``script_finished`` with a status (``FINISHED_SUCCESSFULLY`` = 0).

Widget values live in the browser. The server sends a widget's *default* with
every run and only sets ``set_value`` when the script itself changed the value
(e.g. through ``st.session_state``), so a client must remember the value it
chose and send it back with every rerun; :class:`Session` does that.

The module has two parts:

* :class:`Server` starts ``streamlit run app.py`` (the ``make app`` command)
  on a free port of 127.0.0.1 in its own process group, waits for
  ``/_stcore/health``, reads its memory from ``/proc`` and always stops it.
* :class:`Session` is one browser tab: :meth:`Session.run` sends a rerun and
  waits for ``script_finished``, timing it and collecting the page's widgets,
  exceptions and warning/error boxes.

Only 127.0.0.1 is ever contacted (proxies from the environment are ignored).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

HOST = "127.0.0.1"

#: The widget kinds the client understands (the name used in tables and filters).
WIDGET_KINDS = ("slider", "select_slider", "number_input", "radio", "selectbox", "checkbox")

#: At most this many positions are listed for one widget (a float slider or a
#: number input can have thousands); a walk never needs more.
MAX_POSITIONS = 2001

#: ForwardMsgs the client keeps, like the browser's message cache.
MAX_CACHED_MESSAGES = 500

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# --------------------------------------------------------------------------- server


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def http_get(port: int, path: str, timeout: float = 5.0) -> bytes:
    """GET ``http://127.0.0.1:port/path`` (never through a proxy)."""
    if not path.startswith("/"):
        path = "/" + path
    with _NO_PROXY.open(f"http://{HOST}:{port}{path}", timeout=timeout) as response:
        return response.read()


class Server:
    """``streamlit run SCRIPT --server.headless true`` on a free loopback port.

    Use it as a context manager; the process group is killed on exit, whatever
    happens. ``t_start`` is the ``time.perf_counter()`` just before the process
    was started (for start-up times).
    """

    def __init__(self, root: Path, script: str = "app.py", extra_args: tuple[str, ...] = (),
                 log_path: Path | None = None) -> None:
        self.root = Path(root)
        self.script = script
        self.extra_args = tuple(extra_args)
        self.log_path = log_path
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.t_start = 0.0
        self._log = None

    def command(self) -> list[str]:
        # The venv's `streamlit` script, as `make app` runs it; `-m streamlit` otherwise.
        exe = Path(sys.executable).with_name("streamlit")
        head = [str(exe)] if exe.exists() else [sys.executable, "-m", "streamlit"]
        return head + ["run", self.script, "--server.headless", "true",
                       "--server.port", str(self.port), "--server.address", HOST,
                       "--browser.gatherUsageStats", "false", *self.extra_args]

    def start(self) -> None:
        self.port = free_port()
        self._log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.t_start = time.perf_counter()
        # the environment `make app` and the Binder proxy entry give the server (two glibc
        # malloc arenas); MALLOC_ARENA_MAX set by the caller wins, e.g. to measure without
        env = {**os.environ, "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2")}
        self.proc = subprocess.Popen(self.command(), cwd=self.root, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)   # own process group

    def wait_healthy(self, timeout: float = 60.0) -> float:
        """Poll ``/_stcore/health`` every 20 ms; seconds from start to "ok"."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                code = self.proc.returncode if self.proc else None
                raise RuntimeError(f"streamlit exited early (code {code}); "
                                   f"see {self.log_path or 'its output (--server-log)'}")
            try:
                if http_get(self.port, "/_stcore/health", timeout=1.0).strip() == b"ok":
                    return time.perf_counter() - self.t_start
            except OSError:
                pass
            time.sleep(0.02)
        raise TimeoutError(f"streamlit was not healthy after {timeout:.0f} s")

    def rss_mib(self) -> float | None:
        """Resident memory of the server process (VmRSS in /proc), MiB."""
        if self.proc is None:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            return None
        return None

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used, from /proc/PID/stat."""
        if self.proc is None:
            return math.nan
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()   # after "(command name)"
        except OSError:
            return math.nan
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """SIGTERM the process group, then SIGKILL it if it is still there after 10 s."""
        if self.proc is not None and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, sig)
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.proc is not None:
            # Children left in the group (there should be none) go too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        self._log = None

    def open(self) -> Server:
        """Start and wait until healthy (stopping it again if that fails)."""
        try:
            self.start()
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> Server:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.stop()


# --------------------------------------------------------------------------- widgets


def _grid(lo: float, hi: float, step: float, integer: bool) -> list[float]:
    """lo, lo + step, ..., hi (at most MAX_POSITIONS values, rounded like the UI)."""
    if not (step > 0 and hi >= lo and math.isfinite(hi - lo)):
        return [lo]
    count = min(int(math.floor((hi - lo) / step + 1e-9)) + 1, MAX_POSITIONS)
    values = [lo + i * step for i in range(count)]
    return [float(round(v)) if integer else round(v, 12) for v in values]


@dataclass
class Widget:
    """One input widget as the browser sees it.

    ``positions`` lists every value the widget can take, in order (what the
    arrow keys step through), in the form sent over the wire; ``value`` is the
    current one. Slider values are tuples (a slider sends a list: one value,
    or two for a range, of which only the upper end is moved here).
    """

    id: str
    kind: str
    label: str
    positions: list = field(repr=False)
    value: object
    integer: bool = False

    @property
    def key(self) -> str:
        """The ``key=`` the page gave the widget (the id's last part), or ''."""
        match = re.search(r"-([^-]*)$", self.id)
        key = match.group(1) if match else ""
        return "" if key == "None" else key

    @property
    def name(self) -> str:
        return f"{self.label} [{self.key}]" if self.key else self.label

    def index(self, value: object | None = None) -> int:
        """Position of ``value`` (default: the current value); nearest for numbers."""
        value = self.value if value is None else value
        if value in self.positions:
            return self.positions.index(value)
        if self.kind in ("slider", "number_input") and value is not None:
            last = value[-1] if isinstance(value, tuple) else value
            ends = [p[-1] if isinstance(p, tuple) else p for p in self.positions]
            return min(range(len(ends)), key=lambda i: abs(ends[i] - last))
        return 0

    def state(self, value: object) -> WidgetState | None:
        """The ``WidgetState`` the browser would send for ``value``."""
        if value is None:
            return None
        ws = WidgetState(id=self.id)
        if self.kind == "slider":
            ws.double_array_value.data[:] = list(value)
        elif self.kind == "select_slider":
            ws.string_array_value.data[:] = list(value)      # the formatted option strings
        elif self.kind in ("radio", "selectbox"):
            ws.string_value = value                          # the formatted option string
        elif self.kind == "number_input":
            if self.integer:
                ws.int_value = int(value)
            else:
                ws.double_value = float(value)
        elif self.kind == "checkbox":
            ws.bool_value = bool(value)
        return ws

    @classmethod
    def from_element(cls, element) -> Widget | None:
        """A Widget from a ``delta.new_element`` (None for elements that are not widgets)."""
        kind = element.WhichOneof("type")
        if kind == "slider":
            return cls._from_slider(element.slider)
        if kind in ("radio", "selectbox"):
            proto = getattr(element, kind)
            options = list(proto.options)
            if proto.set_value and proto.HasField("raw_value"):
                value = proto.raw_value
            elif proto.HasField("default") and 0 <= proto.default < len(options):
                value = options[proto.default]
            else:
                value = None                                 # index=None: nothing chosen
            return cls(proto.id, kind, proto.label, options, value)
        if kind == "number_input":
            proto = element.number_input
            integer = proto.data_type == NumberInput.INT
            if proto.set_value and proto.HasField("value"):
                value = proto.value
            elif proto.HasField("default"):
                value = proto.default
            else:
                value = None
            step = proto.step or 1.0
            if proto.has_min and proto.has_max:
                positions = _grid(proto.min, proto.max, step, integer)
            else:                                            # open range: 50 steps either side
                centre = value if value is not None else 0.0
                lo = max(centre - 50 * step, proto.min) if proto.has_min else centre - 50 * step
                hi = min(centre + 50 * step, proto.max) if proto.has_max else centre + 50 * step
                positions = _grid(lo, hi, step, integer)
            return cls(proto.id, kind, proto.label, positions, value, integer)
        if kind == "checkbox":
            proto = element.checkbox
            value = proto.value if proto.set_value else proto.default
            return cls(proto.id, kind, proto.label, [False, True], bool(value))
        return None

    @classmethod
    def _from_slider(cls, proto) -> Widget:
        if proto.type == Slider.SELECT_SLIDER:
            # min/max/step are option *indices*; the wire value is the option text.
            options = list(proto.options)
            if proto.set_value and proto.raw_value:
                current = tuple(proto.raw_value)
            else:
                current = tuple(options[int(i)] for i in proto.default)
            if len(current) == 2:                            # range: move the upper end
                lo = options.index(current[0])
                positions = [(current[0], o) for o in options[lo:]]
            else:
                positions = [(o,) for o in options]
            return cls(proto.id, "select_slider", proto.label, positions, current)
        integer = proto.data_type != Slider.FLOAT
        grid = _grid(proto.min, proto.max, proto.step, integer)
        current = tuple(proto.value) if proto.set_value else tuple(proto.default)
        if len(current) == 2:
            positions = [(current[0], v) for v in grid if v >= current[0]]
        else:
            positions = [(v,) for v in grid]
        widget = cls(proto.id, "slider", proto.label, positions, current, integer)
        widget.value = positions[widget.index(current)] if positions else current
        return widget


# --------------------------------------------------------------------------- session


@dataclass
class RunResult:
    """One script run as seen by the client."""

    ms: float                         # rerun BackMsg sent → script_finished received
    status: str                       # "ok", "timeout", "closed", "compile_error", ...
    exceptions: list[str] = field(default_factory=list)   # Exception elements
    alerts: list[str] = field(default_factory=list)       # st.error / st.warning boxes
    page: str = ""                    # page key (url path) that ran
    messages: int = 0                 # ForwardMsgs received for this run
    nbytes: int = 0
    media: list[str] = field(default_factory=list)        # image URLs of the run
    restarts: int = 0                 # runs that ended early for a rerun (st.rerun)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.exceptions


def page_key(app_page) -> str:
    """The URL path of an ``AppPage``; the default page has an empty one, so
    fall back to its title in URL form ("Noise calibration" → "noise-calibration")."""
    if app_page.url_pathname:
        return app_page.url_pathname
    return re.sub(r"[^a-z0-9]+", "-", app_page.page_name.lower()).strip("-")


class Session:
    """One browser tab connected to a :class:`Server`.

    ``async with Session(port) as s:`` connects; ``await s.run(page=...)``
    opens a page, ``await s.set({widget_id: value})`` moves widgets. After each
    run ``s.widgets`` holds the page's widgets (id → :class:`Widget`, in page
    order) and ``s.pages`` the app's pages (key → page_script_hash).

    ``browser_cache=True`` imitates the browser's message cache: the client
    keeps the large ForwardMsgs it received and lists their hashes in each
    rerun, so the server may send a short reference instead.
    """

    def __init__(self, port: int, *, browser_cache: bool = True, timeout: float = 60.0) -> None:
        self.port = port
        self.browser_cache = browser_cache
        self.timeout = timeout
        self.ws = None
        self.pages: dict[str, str] = {}
        self.page = ""                    # key of the page shown
        self.page_hash = ""
        self.widgets: dict[str, Widget] = {}
        self._server_set: dict[str, bool] = {}
        self._cache: OrderedDict[str, ForwardMsg] = OrderedDict()

    async def __aenter__(self) -> Session:
        self.ws = await connect(f"ws://{HOST}:{self.port}/_stcore/stream",
                                subprotocols=["streamlit"], proxy=None, max_size=None,
                                open_timeout=self.timeout, ping_interval=None)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)
            self.ws = None

    # -- the two actions of a user: open a page, move widgets

    async def run(self, page: str | None = None) -> RunResult:
        """Open ``page`` (a key of :attr:`pages` or a URL path; '' = the default
        page), like clicking it in the navigation bar. ``None`` reruns the page
        shown with the current widget values."""
        if page is None:
            return await self.set({})
        msg = BackMsg()
        client_state = msg.rerun_script
        self.widgets = {}                   # a new page starts without widget states
        if page in self.pages:
            client_state.page_script_hash = self.pages[page]   # a click in the nav bar
        else:
            client_state.page_name = page                       # typing the URL /page
        return await self._rerun(msg, page, {})

    async def set(self, changes: dict[str, object]) -> RunResult:
        """Rerun the page shown with the widgets in ``changes`` (id → wire value) moved."""
        msg = BackMsg()
        msg.rerun_script.page_script_hash = self.page_hash
        # The browser sends the value of every widget on the page with each rerun.
        for widget in self.widgets.values():
            state = widget.state(changes.get(widget.id, widget.value))
            if state is not None:
                msg.rerun_script.widget_states.widgets.append(state)
        return await self._rerun(msg, self.page, changes)

    # -- protocol details

    async def _rerun(self, msg: BackMsg, url_path: str, changes: dict[str, object]) -> RunResult:
        if self.ws is None:
            raise RuntimeError("session is not connected")
        client_state = msg.rerun_script
        client_state.query_string = ""
        info = client_state.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url = f"http://{HOST}:{self.port}/{url_path}"
        if self.browser_cache:
            client_state.cached_message_hashes.extend(self._cache)
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        result = RunResult(ms=math.nan, status="timeout")
        widgets: dict[str, Widget] = {}
        self._server_set = {}
        started = False                     # messages before our run's new_session are stale
        deadline = start + self.timeout
        try:
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    break
                data = await asyncio.wait_for(self.ws.recv(), remaining)
                fmsg = self._resolve(ForwardMsg.FromString(data))
                kind = fmsg.WhichOneof("type")
                if kind == "new_session":
                    started, widgets, self._server_set = True, {}, {}
                    result.exceptions, result.alerts, result.media = [], [], []
                    continue
                if not started:
                    continue
                result.messages += 1
                result.nbytes += len(data)
                if kind == "navigation":
                    self.pages = {page_key(p): p.page_script_hash
                                  for p in fmsg.navigation.app_pages}
                    self.page_hash = fmsg.navigation.page_script_hash
                    self.page = next((k for k, h in self.pages.items() if h == self.page_hash), "")
                elif kind == "page_not_found":
                    result.exceptions.append(f"PageNotFound: {fmsg.page_not_found.page_name!r}")
                elif kind == "delta" and fmsg.delta.WhichOneof("type") == "new_element":
                    self._element(fmsg.delta.new_element, widgets, result)
                elif kind == "script_finished":
                    status = fmsg.script_finished
                    if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        started = False             # the script called st.rerun(): wait on
                        result.restarts += 1
                        continue
                    result.ms = (time.perf_counter() - start) * 1000.0
                    result.status = {ForwardMsg.FINISHED_SUCCESSFULLY: "ok",
                                     ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "ok",
                                     ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile_error",
                                     }.get(status, f"status_{status}")
                    break
        except asyncio.TimeoutError:
            result.status = "timeout"
        except Exception as exc:            # websocket closed, bad frame...
            result.status = f"closed ({type(exc).__name__})"
        if math.isnan(result.ms):
            result.ms = (time.perf_counter() - start) * 1000.0
        result.page = self.page
        if result.status == "ok":
            # A widget that was on the page before keeps the value the client sent,
            # unless the script set it (set_value); a new one starts at its default.
            for widget_id, widget in widgets.items():
                old = self.widgets.get(widget_id)
                if old is None or self._server_set.get(widget_id, False):
                    continue
                sent = changes.get(widget_id, old.value)
                if sent in widget.positions or widget.kind == "number_input":
                    widget.value = sent
            self.widgets = widgets
        return result

    def _element(self, element, widgets: dict[str, Widget], result: RunResult) -> None:
        kind = element.WhichOneof("type")
        if kind == "exception":
            exc = element.exception
            tag = " (warning)" if exc.is_warning else ""
            result.exceptions.append(f"{exc.type}{tag}: {exc.message[:300]}")
        elif kind == "alert":
            fmt = element.alert.format
            if fmt in (Alert.ERROR, Alert.WARNING):
                name = "error" if fmt == Alert.ERROR else "warning"
                result.alerts.append(f"{name}: {element.alert.body[:300]}")
        elif kind == "imgs":
            result.media.extend(img.url for img in element.imgs.imgs if img.url)
        elif kind in WIDGET_KINDS:
            widget = Widget.from_element(element)
            if widget is not None:
                proto = element.slider if kind == "slider" else getattr(element, kind)
                self._server_set[widget.id] = bool(getattr(proto, "set_value", False))
                widgets[widget.id] = widget

    def _resolve(self, fmsg: ForwardMsg) -> ForwardMsg:
        """Swap a reference (``ref_hash``) for the cached message; cache large ones."""
        if fmsg.WhichOneof("type") == "ref_hash":
            cached = self._cache.get(fmsg.ref_hash)
            if cached is None:
                return fmsg                 # should not happen: we only list what we hold
            self._cache.move_to_end(fmsg.ref_hash)
            full = ForwardMsg()
            full.CopyFrom(cached)
            full.metadata.CopyFrom(fmsg.metadata)
            return full
        if self.browser_cache and fmsg.metadata.cacheable and fmsg.hash:
            self._cache[fmsg.hash] = fmsg
            while len(self._cache) > MAX_CACHED_MESSAGES:
                self._cache.popitem(last=False)
        return fmsg

    async def fetch_media(self, urls: list[str], limit: int = 20) -> float:
        """GET the images of a run like the browser does; returns the seconds taken."""
        start = time.perf_counter()
        for url in urls[:limit]:
            if url.startswith("/"):         # only server-relative URLs: never leave 127.0.0.1
                with contextlib.suppress(OSError):
                    await asyncio.to_thread(http_get, self.port, url, 10.0)
        return time.perf_counter() - start
