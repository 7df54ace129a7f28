"""Rerun times, concurrency, memory and start-up of the dpteach app on a REAL
``streamlit run`` server (not AppTest).

What it does
------------
The script starts ``streamlit run app.py --server.headless true`` (what
``make app`` runs) on a free port of 127.0.0.1, and plays browser: it opens
the app's websocket and speaks Streamlit's own protocol (the protobuf messages
of ``streamlit.proto``, see ``benchmarks/_st_client.py``):

1. it sends a ``BackMsg`` whose ``rerun_script`` (a ``ClientState``) names the
   page (``page_script_hash``, or the URL path in ``page_name``) and carries
   the value of every widget of the page (``WidgetStates``);
2. the server runs the page script and streams ``ForwardMsg``s back:
   ``new_session`` (run started), ``navigation`` (the pages and their hashes),
   one ``delta`` per element drawn (sliders with their id, label, options,
   min/max/step and default; ``Exception`` elements; ``st.error`` /
   ``st.warning`` boxes), then ``script_finished``.

One rerun is timed from sending the ``BackMsg`` to receiving
``script_finished`` (status ``FINISHED_SUCCESSFULLY``). The sliders of each
page are discovered from the deltas (no widget ids are written here), so the
benchmark follows the pages as they change. The "main sliders" are every
``st.slider`` and ``st.select_slider`` of a page shown with its defaults
(``--kinds`` adds radios, select boxes, number inputs, checkboxes).

Modes (``--mode``, comma-separated; default ``steps,jumps,startup,import``)
---------------------------------------------------------------------------
* ``steps``: one session visits every page and walks each slider like the
  arrow keys, back to back: right (up to ``--reach`` steps), left past its
  start, and back, repeated until at least ``--min-n`` reruns. Rows
  ``steps·new`` keep only the positions not requested before (the rest are
  revisits, served from the app's caches).
* ``jumps``: one session jumps each slider to random positions (seeded) that
  were never requested on this server: the whole combination of widget values
  is new, and the position is at least two steps from the current one (so the
  app's prefetching of the next arrow-key step cannot have prepared it). When
  a slider has no new position left, another slider is moved first (untimed).
* ``concurrent``: ``--sessions`` users on ``--pages`` (round robin), each
  thinking 0.5-1.5 s (uniform) between actions for ``--seconds``; an action
  steps a random slider (or jumps, with probability ``--jump-fraction``).
  Reports p50/p95/max, errors, reruns per second, and the server's resident
  memory (VmRSS in /proc/PID/status): with one session open, at the peak, and
  ``--settle`` seconds after all sessions closed (e.g. ``--settle 5,130``:
  Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL``,
  120 s, in case it reconnects; the first value is compared with the target).
* ``startup``: time from starting the server process to the first page's
  ``script_finished`` for a fresh session (median of ``--repeat`` servers).
* ``import``: ``import dpteach.plots`` in a fresh interpreter (median of
  ``--repeat``, after one untimed run that warms the disk cache).

``--present`` runs every mode in presentation mode (the classroom bar's toggle, key
``present``, switched on, untimed, after each page is opened): larger charts, secondary
controls folded into expanders (still drawn, so still moved).

``steps`` and ``jumps`` each get a fresh server (caches empty), unless
``--reuse-server``. Every loop is bounded (``--max-n`` reruns per cell,
``--timeout`` per rerun, ``--budget`` seconds per mode) and the server's
process group is always killed at the end.

Run it
------
    .venv/bin/python benchmarks/bench_live_app.py --quick          # smoke run, < 1 min
    .venv/bin/python benchmarks/bench_live_app.py                  # steps, jumps, startup, import
    .venv/bin/python benchmarks/bench_live_app.py --mode concurrent --sessions 30 --seconds 60 \\
        --pages composition,dpsgd-planner
    .venv/bin/python benchmarks/bench_live_app.py --mode steps --pages dpsgd-planner --widgets sigma

``--json FILE`` saves every rerun (raw times) and the summaries; ``--root DIR``
benchmarks another checkout (its ``app.py`` and ``dpteach``).

Reading the numbers
-------------------
The client runs on the same machine as the server and competes with it for
the CPU (the concurrent mode prints the CPU time of both); the load average
is printed with each table. Times include the websocket round trip on
loopback and the client's parsing (well under a millisecond per rerun), not
the browser's drawing nor its fetching of the images (``--fetch-media``
fetches them, untimed, like a browser would). Failed reruns (an exception, a
timeout) are counted under ``err`` and left out of the times.

The app's caches (``st.cache_data``, the figure store) are shared by all
sessions of a server, so "new" means new to that server: a fresh server per
mode keeps ``jumps`` honest, and in ``concurrent`` the users profit from each
other's positions, as a class would.

Protocol notes
--------------
* Pages of ``st.navigation``: the first rerun names the page by URL path in
  ``ClientState.page_name`` ("" = the default page, whose ``url_pathname`` is
  empty); the ``navigation`` message then gives every page's
  ``page_script_hash``, which later reruns send instead, like a click in the
  navigation bar. A new page is opened with no widget states.
* ``st.select_slider`` arrives as a ``Slider`` of type ``SELECT_SLIDER`` whose
  min/max/step/default are option *indices*, but its value goes back as the
  formatted option texts in ``string_array_value``; ``st.slider`` sends a list
  of doubles (``double_array_value``), radio and select box the option text
  (``string_value``), a number input ``double_value``/``int_value``.
* The server sends a widget's default with every run and sets ``set_value``
  only when the script changed it; the client keeps the value it chose.
* A run that calls ``st.rerun()`` ends with ``FINISHED_EARLY_FOR_RERUN`` and
  starts again by itself; the client waits for the final ``script_finished``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _st_client import WIDGET_KINDS, RunResult, Server, Session, Widget, http_get  # noqa: E402

ROOT = HERE.parent
DEFAULT_MODES = ("steps", "jumps", "startup", "import")
ALL_MODES = ("steps", "jumps", "concurrent", "startup", "import")

#: The redesign's targets (milliseconds unless said otherwise).
TARGETS = {"rerun_median": 100.0, "rerun_p95": 300.0, "concurrent_p95": 2000.0,
           "memory_ratio": 1.2, "startup": 3000.0, "import": 800.0}


# --------------------------------------------------------------------------- statistics


def p95(values: list[float]) -> float:
    """95th percentile, nearest rank (the value 95 % of the reruns do not exceed)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "median": math.nan, "p95": math.nan, "max": math.nan}
    return {"n": len(values), "median": statistics.median(values), "p95": p95(values),
            "max": max(values)}


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


# --------------------------------------------------------------------------- recording


class Recorder:
    """Every timed rerun as a dict (what ``--json`` saves), in the order run."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.notes: list[str] = []
        self.summaries: dict[str, object] = {}

    def add(self, mode: str, page: str, widget: str, result: RunResult, *, new: bool | None = None,
            value=None, session: int = 0, timed: bool = True) -> None:
        self.records.append({
            "mode": mode, "page": page, "widget": widget, "ms": round(result.ms, 3),
            "status": result.status, "new": new, "value": _plain(value), "session": session,
            "timed": timed, "exceptions": result.exceptions, "alerts": result.alerts,
            "messages": result.messages, "bytes": result.nbytes, "restarts": result.restarts,
        })


def _plain(value):
    if isinstance(value, tuple):
        return list(value) if len(value) != 1 else value[0]
    return value


def failed(record: dict) -> bool:
    return record["status"] != "ok" or bool(record["exceptions"])


def print_table(records: list[dict], title: str) -> list[dict]:
    """One row per (page, widget, mode): n, median, p95, max (ms), errors, alerts."""
    cells: dict[tuple, list[dict]] = {}
    for record in records:
        cells.setdefault((record["page"], record["widget"], record["mode"]), []).append(record)
        if record["mode"] == "steps" and record["new"]:
            cells.setdefault((record["page"], record["widget"], "steps·new"), []).append(record)
    rows = []
    for (page, widget, mode), group in cells.items():
        times = [r["ms"] for r in group if not failed(r)]
        rows.append({"page": page, "widget": widget, "mode": mode, **summary(times),
                     "errors": sum(failed(r) for r in group),
                     "alerts": sum(bool(r["alerts"]) for r in group)})
    print(f"\n{title}")
    header = (f"{'page':<20} {'widget':<34} {'mode':<10} {'n':>4} {'median':>8} {'p95':>8}"
              f" {'max':>8} {'err':>4} {'alert':>5}")
    print(header)
    print("-" * len(header))
    page_order = {page: i for i, page in reversed(list(enumerate(r["page"] for r in rows)))}
    for row in sorted(rows, key=lambda r: page_order[r["page"]]):   # pages in the order run
        flag = "*" if 0 < row["n"] < 20 and row["mode"] != "load" else " "
        print(f"{row['page'][:20]:<20} {row['widget'][:34]:<34} {row['mode']:<10} {row['n']:>4}"
              f"{flag}{_ms(row['median'])}{_ms(row['p95'])}{_ms(row['max'])}"
              f" {row['errors']:>4} {row['alerts']:>5}")
    print("(ms; * = fewer than 20 reruns in the cell; err = exception, timeout or failed run, "
          "not timed; alert = st.error/st.warning shown)")
    problems = sorted({m for r in records
                       for m in r["exceptions"] + ([] if r["status"] == "ok" else [r["status"]])})
    alerts = sorted({m for r in records for m in r["alerts"]})
    for label, items in (("errors", problems), ("alerts", alerts)):
        if items:
            print(f"{label} ({len(items)} distinct):")
            for item in items[:8]:
                print(f"  - {item[:200]}")
    return rows


def _ms(value: float) -> str:
    return f"{'-':>9}" if math.isnan(value) else f"{value:>9.1f}"


# --------------------------------------------------------------------------- one session


def walk(start: int, count: int, reach: int) -> list[int]:
    """Indices an arrow-key walk visits: right (at most ``reach`` steps), left past
    the start (at most ``reach`` steps on that side), and right back to the start."""
    hi, lo = min(start + reach, count - 1), max(start - reach, 0)
    return (list(range(start + 1, hi + 1)) + list(range(hi - 1, lo - 1, -1))
            + list(range(lo + 1, start + 1)))


def combination(session: Session, changes: dict) -> tuple:
    """The page and every widget value once ``changes`` are applied (hashable)."""
    values = {w.id: changes.get(w.id, w.value) for w in session.widgets.values()}
    return (session.page, tuple(sorted(values.items(), key=lambda kv: kv[0])))


def select_widgets(session: Session, args) -> list[Widget]:
    """The widgets of the page to move: of ``--kinds``, with two positions or more, and
    matching ``--widgets`` (a widget key exactly, otherwise a part of the label)."""
    keys = {w.key.lower() for w in session.widgets.values()}
    chosen = []
    for widget in session.widgets.values():
        if widget.kind not in args.kinds or len(widget.positions) < 2:
            continue
        if args.widgets and not any(
                term.lower() == widget.key.lower()
                or (term.lower() not in keys and term.lower() in widget.label.lower())
                for term in args.widgets):
            continue
        chosen.append(widget)
    return chosen[:args.max_widgets] if args.max_widgets else chosen


class Budget:
    """Wall-clock limit of one mode."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.perf_counter() + seconds

    def left(self) -> bool:
        return time.perf_counter() < self.deadline


async def present_on(s: Session, page: str, args, rec: Recorder, session: int = 0) -> None:
    """``--present``: switch the presentation-mode toggle on (untimed)."""
    if not args.present:
        return
    toggle = next((w for w in s.widgets.values() if w.key == "present"), None)
    if toggle is None:
        raise SystemExit("--present: the page has no presentation-mode toggle (key 'present')")
    if toggle.value is not True:
        result = await s.set({toggle.id: True})
        rec.add("setup", page, "(presentation mode)", result, session=session, timed=False)


async def one_session(port: int, mode: str, args, rec: Recorder, seen: set) -> None:
    """``steps`` or ``jumps`` over the chosen pages, in one browser session."""
    rng = random.Random(args.seed)
    budget = Budget(args.budget)
    async with Session(port, timeout=args.timeout, browser_cache=not args.no_browser_cache) as s:
        first = await s.run("")                                   # open "/"
        rec.add("load", first.page, "(open /)", first)
        seen.add(combination(s, {}))
        pages = choose_pages(s, args.pages)
        for page in pages:
            if not budget.left():
                break
            opened = await s.run(page)
            rec.add("load", page, "(open page)", opened)
            if opened.status != "ok":
                continue
            await present_on(s, page, args, rec)
            seen.add(combination(s, {}))                          # the defaults were shown
            defaults = {w.id: w.value for w in s.widgets.values()}
            for target in select_widgets(s, args):
                if not budget.left():
                    break
                if mode == "steps":
                    await steps(s, target, args, rec, seen, budget)
                else:
                    await jumps(s, target, args, rec, seen, budget, rng)
                # Back to the page's defaults before the next slider (untimed).
                back = {i: v for i, v in defaults.items()
                        if i in s.widgets and s.widgets[i].value != v}
                if back:
                    seen.add(combination(s, back))
                    rec.add("setup", page, target.name, await s.set(back), timed=False)
        if not budget.left():
            rec.notes.append(f"{mode}: stopped by the time budget (--budget {args.budget:.0f} s)")


async def move(s: Session, widget: Widget, index: int, mode: str, rec: Recorder,
               seen: set) -> RunResult:
    """Move ``widget`` to ``positions[index]`` (one timed rerun)."""
    value = widget.positions[index]
    key = combination(s, {widget.id: value})
    new = key not in seen
    seen.add(key)
    result = await s.set({widget.id: value})
    rec.add(mode, s.page, widget.name, result, new=new, value=value)
    if result.status != "ok":
        raise ConnectionError(f"{mode} on {s.page}/{widget.name}: {result.status}")
    return result


async def steps(s: Session, target: Widget, args, rec: Recorder, seen: set, budget: Budget) -> None:
    done = 0
    while done < args.min_n and budget.left():
        widget = s.widgets.get(target.id)
        if widget is None:                     # the slider disappeared from the page
            return
        path = walk(widget.index(), len(widget.positions), args.reach)
        for index in path:
            widget = s.widgets.get(target.id)
            if widget is None or done >= args.max_n or not budget.left():
                return
            await move(s, widget, index, "steps", rec, seen)
            done += 1
            if args.pause:
                await asyncio.sleep(args.pause)


async def jumps(s: Session, target: Widget, args, rec: Recorder, seen: set, budget: Budget,
                rng: random.Random) -> None:
    done = setups = 0
    while done < args.min_n and setups <= args.max_n and budget.left():
        widget = s.widgets.get(target.id)
        if widget is None:
            return
        here, count = widget.index(), len(widget.positions)
        gap = 2 if count > 3 else 1                 # not the next arrow-key step, if possible
        fresh = [j for j in range(count) if abs(j - here) >= gap
                 and combination(s, {widget.id: widget.positions[j]}) not in seen]
        if fresh:
            await move(s, widget, rng.choice(fresh), "jumps", rec, seen)
            done += 1
            continue
        # No new position left for this slider: move another one first (untimed).
        others = [w for w in s.widgets.values() if w.id != widget.id and w.kind in args.kinds
                  and len(w.positions) > 1]                  # any slider, filters or not
        if not others:
            return
        other = rng.choice(others)
        choices = [j for j in range(len(other.positions)) if j != other.index()]
        value = other.positions[rng.choice(choices)]
        seen.add(combination(s, {other.id: value}))
        result = await s.set({other.id: value})
        rec.add("setup", s.page, widget.name, result, value=value, timed=False)
        setups += 1
        if result.status != "ok":
            raise ConnectionError(f"setup on {s.page}: {result.status}")


def choose_pages(session: Session, wanted: list[str] | None) -> list[str]:
    pages = list(session.pages)
    if not wanted:
        return pages
    unknown = [p for p in wanted if p not in pages]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; the app has {pages}")
    return wanted


def run_one_session_mode(mode: str, args, rec: Recorder, server: Server | None,
                         seen: set) -> None:
    """``steps`` or ``jumps`` on ``server`` (a fresh one if None); ``seen`` holds the
    widget combinations already requested on that server."""
    t0, load0, first = time.perf_counter(), loadavg(), len(rec.records)
    own = server is None
    server = server or start_server(args)
    try:
        asyncio.run(one_session(server.port, mode, args, rec, seen))
    except ConnectionError as exc:
        rec.notes.append(f"{mode}: stopped early: {exc}")
        print(f"  stopped early: {exc}")
    finally:
        if own:
            server.stop()
    took = time.perf_counter() - t0
    title = f"== {mode} (one session; {took:.0f} s; load average {load0} → {loadavg()})"
    rows = print_table([r for r in rec.records[first:] if r["timed"]], title)
    rec.summaries[mode] = rows


def start_server(args) -> Server:
    """A healthy server for ``args.root`` (the caller stops it)."""
    return Server(args.root, extra_args=tuple(args.server_arg), log_path=args.server_log).open()


# --------------------------------------------------------------------------- concurrent


async def concurrent(server: Server, args, rec: Recorder) -> dict:
    pages = args.pages or ["composition", "dpsgd-planner"]
    port = server.port
    # One session first: it opens the pages and moves each slider once (the
    # "one-session level" of memory is taken while it is still connected).
    async with Session(port, timeout=args.timeout) as s:
        await s.run("")
        default_page = s.page                   # served at "/" (its own path is not found)
        for page in choose_pages(s, pages):
            rec.add("warm-up", page, "(open page)", await s.run(page), timed=False)
            await present_on(s, page, args, rec)
            for widget in select_widgets(s, args):
                j = widget.index() + (1 if widget.index() + 1 < len(widget.positions) else -1)
                result = await s.set({widget.id: widget.positions[j]})
                rec.add("warm-up", page, widget.name, result, timed=False)
        rss_one = server.rss_mib()
    await asyncio.sleep(1.0)
    rss_before = server.rss_mib()

    samples: list[float] = []

    async def sample_memory() -> None:
        while True:
            value = server.rss_mib()
            if value is not None:
                samples.append(value)
            await asyncio.sleep(0.25)

    start = time.perf_counter()
    end = start + args.seconds
    failures: list[str] = []

    async def user(i: int) -> None:
        rng = random.Random(args.seed * 1000 + i)
        page = pages[i % len(pages)]
        try:
            async with Session(port, timeout=args.timeout,
                               browser_cache=not args.no_browser_cache) as s:
                opened = await s.run("" if page == default_page else page)   # typing the URL
                rec.add("load", page, "(open page)", opened, session=i)
                await present_on(s, page, args, rec, session=i)
                actions = 0
                max_actions = int(args.seconds / 0.5) + 2
                while actions < max_actions:
                    await asyncio.sleep(rng.uniform(0.5, 1.5))      # thinking
                    if time.perf_counter() >= end:
                        break
                    widgets = select_widgets(s, args)
                    if not widgets:
                        break
                    widget = rng.choice(widgets)
                    here, count = widget.index(), len(widget.positions)
                    if rng.random() < args.jump_fraction:
                        index = rng.choice([j for j in range(count) if j != here])
                    else:
                        index = here + rng.choice((-1, 1))
                        index = 1 if index < 0 else count - 2 if index >= count else index
                    value = widget.positions[index]
                    result = await s.set({widget.id: value})
                    rec.add("concurrent", page, widget.name, result, value=value, session=i)
                    actions += 1
                    if result.status != "ok":       # counted with the reruns; the tab is lost
                        break
                    if args.fetch_media and result.media:
                        await s.fetch_media(result.media)
        except Exception as exc:                   # could not connect, ...
            failures.append(f"session {i}: {type(exc).__name__}: {exc}")

    sampler = asyncio.create_task(sample_memory())      # runs until the last RSS reading
    cpu0, server_cpu0 = time.process_time(), server.cpu_seconds()
    try:
        try:
            await asyncio.wait_for(asyncio.gather(*(user(i) for i in range(args.sessions))),
                                   args.seconds + 2 * args.timeout + 30)
        except asyncio.TimeoutError:
            failures.append("the sessions did not finish in time")
        wall = time.perf_counter() - start
        client_cpu = time.process_time() - cpu0
        server_cpu = server.cpu_seconds() - server_cpu0
        rss_settled, waited = {}, 0.0
        for seconds in args.settle:              # sorted: one sleep after the other
            await asyncio.sleep(seconds - waited)
            waited = seconds
            rss_settled[seconds] = server.rss_mib()
    finally:
        sampler.cancel()
    return {"sessions": args.sessions, "seconds": args.seconds, "pages": pages,
            "wall_s": wall, "client_cpu_s": client_cpu, "server_cpu_s": server_cpu,
            "rss_one_session_mib": rss_one, "rss_before_mib": rss_before,
            "rss_peak_mib": max(samples, default=math.nan),
            "rss_after_mib": rss_settled[args.settle[0]], "rss_after_close_mib": rss_settled,
            "failures": failures}


def run_concurrent(args, rec: Recorder) -> None:
    t0, load0, first = time.perf_counter(), loadavg(), len(rec.records)
    server = start_server(args)
    try:
        info = asyncio.run(concurrent(server, args, rec))
        # --rounds: the same class again on the same server; memory that keeps growing
        # round after round is a leak, memory that levels off is the bounded caches filling
        rounds_after = [info["rss_after_mib"]]
        for i in range(1, args.rounds):                # new users: other positions
            round_args = argparse.Namespace(**{**vars(args), "seed": args.seed + 7919 * i})
            rounds_after.append(asyncio.run(concurrent(server, round_args, rec))["rss_after_mib"])
        info["rss_after_each_round_mib"] = rounds_after
    finally:
        server.stop()
    records = [r for r in rec.records[first:] if r["timed"]]
    took = time.perf_counter() - t0
    print_table(records, f"== concurrent ({args.sessions} sessions, {args.seconds:.0f} s, think "
                         f"0.5-1.5 s; {took:.0f} s; load average {load0} → {loadavg()})")
    reruns = [r for r in records if r["mode"] == "concurrent"]
    stats = summary([r["ms"] for r in reruns if not failed(r)])
    errors = sum(failed(r) for r in reruns) + len(info["failures"])
    info.update(reruns=len(reruns), reruns_per_s=len(reruns) / args.seconds, errors=errors,
                alerts=sum(bool(r["alerts"]) for r in reruns),
                **{f"rerun_{k}": v for k, v in stats.items()})
    one, after = info["rss_one_session_mib"], info["rss_after_mib"]
    ratio = after / one if one and after else math.nan
    info["memory_ratio"] = ratio
    print(f"all sessions: {len(reruns)} reruns ({info['reruns_per_s']:.1f}/s), "
          f"p50 {stats['median']:.0f} ms, p95 {stats['p95']:.0f} ms, max {stats['max']:.0f} ms, "
          f"errors {errors}, reruns showing an alert {info['alerts']}")
    print(f"server RSS: one session {one:.0f} MiB, before {info['rss_before_mib']:.0f}, "
          f"peak {info['rss_peak_mib']:.0f}; after close: "
          + ", ".join(f"{v:.0f} MiB at {k:.0f} s" for k, v in info["rss_after_close_mib"].items())
          + f" (first / one session = {ratio:.2f})")
    if len(info["rss_after_each_round_mib"]) > 1:
        print("server RSS after each round's close: " + ", ".join(
            f"{v:.0f}" for v in info["rss_after_each_round_mib"]) + " MiB (round 1 is the "
              "one compared with the target)")
    print(f"CPU time while the sessions ran ({info['wall_s']:.0f} s wall): server "
          f"{info['server_cpu_s']:.1f} s, this client {info['client_cpu_s']:.1f} s")
    for failure in info["failures"][:8]:
        print(f"  failure: {failure}")
    rec.summaries["concurrent"] = info


# --------------------------------------------------------------------------- startup, import


async def first_page(port: int, timeout: float) -> tuple[RunResult, float]:
    """Open "/" like a browser; the result and the perf_counter() when it finished."""
    await asyncio.to_thread(http_get, port, "/", timeout)   # the browser loads index.html first
    async with Session(port, timeout=timeout) as s:
        result = await s.run("")
        return result, time.perf_counter()


def run_startup(args, rec: Recorder) -> None:
    t0, load0 = time.perf_counter(), loadavg()
    rows = []
    for i in range(args.repeat):
        server = Server(args.root, extra_args=tuple(args.server_arg), log_path=args.server_log)
        try:
            server.start()
            healthy = server.wait_healthy(args.timeout)
            result, finished = asyncio.run(first_page(server.port, args.timeout))
            total = finished - server.t_start
        finally:
            server.stop()
        rows.append({"total_ms": total * 1000, "health_ms": healthy * 1000,
                     "first_run_ms": result.ms, "status": result.status,
                     "exceptions": result.exceptions, "page": result.page})
        problem = f", {result.exceptions[0]}" if result.exceptions else ""
        print(f"  start-up {i + 1}: {total * 1000:.0f} ms (health after {healthy * 1000:.0f} ms, "
              f"first page run {result.ms:.0f} ms, {result.status}{problem})")
    ok = [r["total_ms"] for r in rows if r["status"] == "ok" and not r["exceptions"]]
    stats = summary(ok)
    print(f"== startup ({time.perf_counter() - t0:.0f} s; load average {load0} → {loadavg()}): "
          f"server start → first page finished: median {stats['median']:.0f} ms, "
          f"max {stats['max']:.0f} ms over {stats['n']} of {len(rows)} runs; health ready median "
          f"{statistics.median(r['health_ms'] for r in rows):.0f} ms")
    rec.summaries["startup"] = {"runs": rows, **stats}


IMPORT_CODE = ("import time; t = time.perf_counter(); import dpteach.plots; "
               "print(time.perf_counter() - t)")


def run_import(args, rec: Recorder) -> None:
    t0, load0 = time.perf_counter(), loadavg()
    times, walls = [], []
    for i in range(args.repeat + 1):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", IMPORT_CODE], cwd=args.root,
                             capture_output=True, text=True, timeout=120, check=True)
        wall = time.perf_counter() - start
        if i == 0:                                   # warms the disk cache, compiles .pyc
            first = float(out.stdout.strip()) * 1000
            continue
        times.append(float(out.stdout.strip()) * 1000)
        walls.append(wall * 1000)
    stats = summary(times)
    print(f"== import ({time.perf_counter() - t0:.0f} s; load average {load0} → {loadavg()}): "
          f"import dpteach.plots in a fresh interpreter: median {stats['median']:.0f} ms "
          f"(min {min(times):.0f}, max {stats['max']:.0f}, n {stats['n']}; untimed first run "
          f"{first:.0f} ms); whole process median {statistics.median(walls):.0f} ms")
    rec.summaries["import"] = {"ms": times, "process_ms": walls, "first_ms": first, **stats}


# --------------------------------------------------------------------------- targets, main


def _verdict(met: bool) -> str:
    return "MET" if met else "NOT MET"


def report_targets(rec: Recorder) -> None:
    print("\n== targets")
    for modes in (("steps",), ("jumps",), ("steps", "jumps")):
        reruns = [r for r in rec.records if r["timed"] and r["mode"] in modes]
        if not reruns or (len(modes) == 1 and modes[0] not in rec.summaries):
            continue
        stats = summary([r["ms"] for r in reruns if not failed(r)])
        errors = sum(failed(r) for r in reruns)
        met = (stats["median"] <= TARGETS["rerun_median"] and stats["p95"] <= TARGETS["rerun_p95"]
               and not errors)
        print(f"one session, {' + '.join(modes)}, all cells pooled: n {stats['n']}, "
              f"median {stats['median']:.0f} ms (≤ 100), p95 {stats['p95']:.0f} ms (≤ 300), "
              f"errors {errors}: {_verdict(met)}")
    rows = [row for mode in ("steps", "jumps") for row in rec.summaries.get(mode, [])
            if row["mode"] in ("steps", "jumps") and row["n"]]
    if rows:
        over = sum(r["median"] > TARGETS["rerun_median"] or r["p95"] > TARGETS["rerun_p95"]
                   for r in rows)
        print(f"  cells over a target: {over} of {len(rows)}")
        for stat in ("median", "p95"):
            worst = max(rows, key=lambda r: r[stat])
            print(f"  worst {stat}: {worst[stat]:.0f} ms "
                  f"({worst['page']} / {worst['widget']} / {worst['mode']})")
    info = rec.summaries.get("concurrent")
    if info:
        verdict = info["rerun_p95"] <= TARGETS["concurrent_p95"] and info["errors"] == 0
        mem = info["memory_ratio"] <= TARGETS["memory_ratio"]
        print(f"concurrent: p95 {info['rerun_p95']:.0f} ms (≤ 2000), errors {info['errors']} "
              f"(0): {_verdict(verdict)}; memory after close / one session "
              f"{info['memory_ratio']:.2f} (≤ 1.20): {_verdict(mem)}")
    if "startup" in rec.summaries:
        value = rec.summaries["startup"]["median"]
        print(f"start-up to first page: median {value:.0f} ms (≤ 3000): "
              f"{_verdict(value <= TARGETS['startup'])}")
    if "import" in rec.summaries:
        value = rec.summaries["import"]["median"]
        print(f"import dpteach.plots: median {value:.0f} ms (≤ 800): "
              f"{_verdict(value <= TARGETS['import'])}")
    for note in rec.notes:
        print(f"note: {note}")


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default=",".join(DEFAULT_MODES),
                    help=f"comma-separated, of {', '.join(ALL_MODES)} (default: %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run (< 1 min): 2 reruns of the first slider of each page, one "
                         "server for steps and jumps, 1 start-up and import "
                         "(concurrent: 4 sessions, 8 s)")
    ap.add_argument("--pages", help="comma-separated URL paths, e.g. composition,dpsgd-planner "
                                    "(default: all; concurrent: composition,dpsgd-planner)")
    ap.add_argument("--widgets", help="comma-separated widget keys or parts of labels")
    ap.add_argument("--kinds", default="slider,select_slider",
                    help="widget kinds to move (also: number_input, radio, selectbox, checkbox)")
    ap.add_argument("--max-widgets", type=int, default=0,
                    help="steps, jumps: only the first N chosen widgets of each page (0: all)")
    ap.add_argument("--min-n", type=int, default=20, help="reruns per cell (steps, jumps)")
    ap.add_argument("--max-n", type=int, default=60, help="at most this many reruns per cell")
    ap.add_argument("--reach", type=int, default=10,
                    help="steps: at most this many steps each way")
    ap.add_argument("--pause", type=float, default=0.0,
                    help="steps: seconds between steps (untimed)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=60.0, help="concurrent: duration")
    ap.add_argument("--jump-fraction", type=float, default=0.2,
                    help="concurrent: share of actions that jump instead of stepping")
    ap.add_argument("--settle", default="5",
                    help="concurrent: seconds after close when RSS is read (comma-separated)")
    ap.add_argument("--present", action="store_true",
                    help="presentation mode: switch the classroom bar's toggle on after "
                         "opening each page (untimed)")
    ap.add_argument("--fetch-media", action="store_true",
                    help="concurrent: GET the images like a browser (untimed)")
    ap.add_argument("--repeat", type=int, default=5, help="startup and import: runs")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per rerun")
    ap.add_argument("--budget", type=float, default=1200.0, help="seconds per one-session mode")
    ap.add_argument("--reuse-server", action="store_true", help="steps and jumps on one server")
    ap.add_argument("--rounds", type=int, default=1,
                    help="concurrent: run the sessions this many times on the same server and "
                         "report the memory after each round (a leak keeps growing)")
    ap.add_argument("--no-browser-cache", action="store_true",
                    help="do not imitate the browser's ForwardMsg cache")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="checkout with app.py (default: this one)")
    ap.add_argument("--server-arg", action="append", default=[],
                    help="extra `streamlit run` option, "
                         "e.g. --server-arg=--server.fileWatcherType=none")
    ap.add_argument("--server-log", type=Path, help="append the server's output to this file")
    ap.add_argument("--json", type=Path, help="save raw reruns and summaries to this file")
    args = ap.parse_args(argv)
    args.modes = [m.strip() for m in args.mode.split(",") if m.strip()]
    bad = [m for m in args.modes if m not in ALL_MODES]
    if bad:
        ap.error(f"unknown mode(s) {bad}")
    args.pages = [p.strip() for p in args.pages.split(",")] if args.pages else None
    args.widgets = [w.strip() for w in args.widgets.split(",")] if args.widgets else None
    args.kinds = tuple(k.strip() for k in args.kinds.split(","))
    args.root = args.root.resolve()
    try:
        args.settle = sorted(float(x) for x in str(args.settle).split(","))
    except ValueError:
        ap.error(f"--settle takes seconds separated by commas, got {args.settle!r}")
    unknown = [k for k in args.kinds if k not in WIDGET_KINDS]
    if unknown:
        ap.error(f"unknown widget kind(s) {unknown}; known: {', '.join(WIDGET_KINDS)}")
    if args.quick:
        args.min_n, args.max_n, args.reach, args.max_widgets = 2, 2, 1, 1
        args.repeat = 1
        args.reuse_server = True
        args.seconds = min(args.seconds, 8.0)
        args.sessions = min(args.sessions, 4)
        args.settle = [min(args.settle[0], 2.0)]
        args.budget = min(args.budget, 30.0)
    for name in ("min_n", "max_n", "reach", "repeat", "sessions"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if not (0 < args.seconds <= 600 and 0 < args.timeout <= 600 and args.sessions <= 200):
        ap.error("--seconds and --timeout must be in (0, 600], --sessions at most 200")
    if not all(0 <= x <= 600 for x in args.settle):
        ap.error("--settle values must be in [0, 600]")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    rec = Recorder()
    t0 = time.perf_counter()
    print(f"dpteach live-app benchmark: root {args.root}, modes {','.join(args.modes)}; "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load average {loadavg()}")
    one_session_modes = {"steps", "jumps"} & set(args.modes)
    shared = start_server(args) if args.reuse_server and one_session_modes else None
    shared_seen: set = set()
    try:
        for mode in args.modes:
            if mode in ("steps", "jumps"):
                run_one_session_mode(mode, args, rec, shared, shared_seen if shared else set())
            elif mode == "concurrent":
                run_concurrent(args, rec)
            elif mode == "startup":
                run_startup(args, rec)
            elif mode == "import":
                run_import(args, rec)
    finally:
        if shared is not None:
            shared.stop()
    report_targets(rec)
    print(f"total {time.perf_counter() - t0:.0f} s; load average {loadavg()}")
    if args.json:
        meta = {"argv": sys.argv, "root": str(args.root), "python": sys.version.split()[0],
                "streamlit": _version("streamlit"), "machine": platform.machine(),
                "cpus": os.cpu_count(), "load_average_end": loadavg(), "targets": TARGETS}
        data = {"meta": meta, "summaries": rec.summaries, "notes": rec.notes,
                "records": rec.records}
        args.json.write_text(json.dumps(_no_nan(data), indent=1, default=str))
        print(f"wrote {args.json}")
    return 0


def _no_nan(value):
    """NaN (an empty cell) as null, so that the file is strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    sys.exit(main())
