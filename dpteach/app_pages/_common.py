"""Helpers shared by the app's pages.

* log-scale sliders for ε, δ and similar parameters that span decades, each
  with a caption saying which end is more private;
* :func:`friendly_errors`, which turns the :class:`~dpteach._validation.ParameterError`
  that dpteach raises for a combination the mathematics does not allow into an
  ``st.warning`` (never a traceback); any other exception is a bug and
  propagates, so the tests see it;
* :func:`cached_figure` / :data:`FIGURES`, which draw a ``dpteach.plots``
  figure once per parameter combination, keep the PNG, and can prefetch the
  figures for the neighbouring slider positions, so stepping a slider with
  the arrow keys is instant.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import streamlit as st

from .._validation import ParameterError
from ..plots import new_axes

#: ε values for sliders: about six per decade from 0.01 to 10 (a 1-1.5-2-3-5-7 series).
EPSILONS: tuple[float, ...] = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)
) + (10.0,)

#: δ values: 0 (pure DP) and the powers of ten from 1e-10 to 1e-2.
DELTAS: tuple[float, ...] = (0.0,) + tuple(10.0 ** -k for k in range(10, 1, -1))

#: Size (inches) and resolution of the figures drawn for the app. A little smaller
#: than the notebooks' 6.4 x 4 so that the same fonts read larger on a projector.
FIGSIZE = (6.0, 3.8)
DPI = 130

PRIVACY_CAPTION = "← more private | less private →"


def fmt(x: float, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, e.g. ``fmt(2/3) == '0.6667'``."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def fmt_delta(delta: float) -> str:
    """``0`` for pure DP, otherwise ``1e-05`` style (``10⁻⁵`` reads badly in a slider)."""
    return "0 (pure DP)" if delta == 0 else f"{delta:.0e}"


def log_slider(label: str, options: Sequence[float], value: float, *, key: str,
               help: str | None = None, format_func=fmt,
               caption: str | None = PRIVACY_CAPTION) -> float:
    """A ``st.select_slider`` over log-spaced ``options`` returning a float.

    Equal steps of the slider multiply the value by about the same factor, so
    0.01 and 10 are both reachable with a few key presses.
    """
    options = list(options)
    if value not in options:
        raise ParameterError(f"value={value!r} is not one of the slider options {options}")
    chosen = st.select_slider(label, options=options, value=value, key=key, help=help,
                              format_func=format_func)
    if caption:
        st.caption(caption)
    return float(chosen)


def epsilon_slider(label: str = "Privacy loss ε", *, key: str = "epsilon",
                   value: float = 1.0, options: Sequence[float] = EPSILONS,
                   help: str | None = None) -> float:
    """Log-scale ε slider with the caption ``← more private | less private →``."""
    return log_slider(label, options, value, key=key, help=help or (
        "Smaller ε = stronger privacy guarantee = more noise. "
        "Each step multiplies ε by about 1.5."))


def delta_slider(label: str = "δ (failure probability)", *, key: str = "delta",
                 value: float = 1e-5, options: Sequence[float] = DELTAS,
                 help: str | None = None) -> float:
    """Log-scale δ slider including δ = 0 (pure DP) at the private end."""
    return log_slider(label, options, value, key=key, format_func=fmt_delta, help=help or (
        "δ is the probability that the ε guarantee may fail. Keep it well "
        "below 1/n for a dataset of n people; δ = 0 is pure ε-DP."))


def show_error(exc: BaseException, what: str | None = None) -> None:
    """Show ``exc`` as a friendly warning box (no traceback)."""
    prefix = f"**{what}** is not available for these settings. " if what else ""
    st.warning(f"{prefix}{exc}", icon=":material/warning:")


@contextlib.contextmanager
def friendly_errors(what: str | None = None) -> Iterator[None]:
    """Run a block; a :class:`ParameterError` from dpteach becomes a warning.

    Only dpteach's own "these parameters are not allowed" error is caught: a
    ``TypeError``, an ``IndexError`` or a plain ``ValueError`` from a bug still
    fails loudly (and fails the AppTest tests, which check for exceptions).

    The rest of the page keeps rendering::

        with friendly_errors("The Gaussian mechanism"):
            sigma = gaussian_sigma(1.0, eps, delta)
            st.metric("σ", fmt(sigma))
    """
    try:
        yield
    except ParameterError as exc:
        show_error(exc, what)


def figure_png(fig, dpi: int = DPI) -> bytes:
    """Encode a matplotlib Figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


#: Held while the app draws a matplotlib figure (see :meth:`FigureStore._draw_items`);
#: a page that draws outside the store while prefetching is on should hold it too.
DRAW_LOCK = threading.Lock()


class Prefetcher:
    """Process-wide memo of a pure function, with background warming of likely next calls.

    ``st.cache_data`` cannot be filled from a background thread (it expects a
    running script), hence this small LRU store of futures (``max_entries``):
    :meth:`get` returns the memoized value, computing it now if needed;
    :meth:`prefetch` queues the values for the neighbouring slider positions on
    one worker thread, so that the next arrow-key step finds them ready. A
    value that is queued but not yet started is computed at once in the calling
    thread. Exceptions of ``func`` (e.g. ``ValueError`` for a bad parameter
    combination) propagate from :meth:`get` and are not stored. Set the
    environment variable ``DPTEACH_APP_PREFETCH=0`` to turn prefetching off.
    """

    def __init__(self, func, max_entries: int = 256, timeout: float = 120.0) -> None:
        self._func = func
        self.max_entries = max_entries
        self._timeout = timeout
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple, Future] = OrderedDict()
        self._pool: ThreadPoolExecutor | None = None

    def _store(self, key: tuple, future: Future) -> None:
        # caller holds the lock
        self._items[key] = future
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def get(self, *args):
        """``func(*args)``; computed now unless already stored."""
        with self._lock:
            future = self._items.get(args)
            if future is not None:
                self._items.move_to_end(args)
        if future is not None and not future.cancel():
            try:
                return future.result(timeout=self._timeout)
            except Exception:
                pass                     # fall through and compute it here, raising here
        value = self._func(*args)
        done: Future = Future()
        done.set_result(value)
        with self._lock:
            self._store(args, done)
        return value

    def prefetch(self, *args) -> None:
        """Queue ``func(*args)`` on the background thread."""
        if os.environ.get("DPTEACH_APP_PREFETCH", "1") == "0":
            return
        with self._lock:
            if args in self._items:
                return
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1,
                                                thread_name_prefix="dpteach-prefetch")
            self._store(args, self._pool.submit(self._func, *args))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class FigureStore(Prefetcher):
    """Process-wide cache of rendered figures (PNG bytes), with prefetching.

    Drawing one ``dpteach.plots`` figure takes 60-90 ms, mostly matplotlib's
    text layout, so a page that redraws two figures after every slider step
    would lag behind an instructor pressing the arrow keys. Each figure is
    therefore drawn once per argument combination and kept (a
    :class:`Prefetcher` keyed by the plot function's dotted name and its
    keyword arguments); after a page has shown its figures it may
    :meth:`prefetch` the ones for the neighbouring slider positions.
    """

    def __init__(self, max_entries: int = 256) -> None:
        super().__init__(self._draw_items, max_entries=max_entries, timeout=60.0)

    @staticmethod
    def _draw_items(function: str, items: tuple) -> bytes:
        module, name = function.rsplit(".", 1)
        plot = getattr(importlib.import_module(module), name)
        # One figure at a time: parts of matplotlib (the mathtext parser, built on
        # pyparsing) are not thread-safe, and the background thread draws too.
        with DRAW_LOCK:
            _, ax = new_axes(figsize=FIGSIZE)
            return figure_png(plot(**dict(items), ax=ax))

    def get(self, function: str, /, **kwargs) -> bytes:
        """PNG of ``function(**kwargs)``; drawn now unless already stored."""
        return super().get(function, tuple(sorted(kwargs.items())))

    def prefetch(self, function: str, /, **kwargs) -> None:
        """Queue ``function(**kwargs)`` for drawing in the background."""
        super().prefetch(function, tuple(sorted(kwargs.items())))


FIGURES = FigureStore()


def cached_figure(function: str, /, **kwargs) -> bytes:
    """PNG of ``function(**kwargs)``, drawn once per argument combination.

    ``function`` is a dotted name such as
    ``"dpteach.plots.calibration.plot_sigma_comparison"``; the arguments must
    be hashable plain values (numbers, strings, None, tuples).
    """
    return FIGURES.get(function, **kwargs)


def neighbours(options: Sequence[float], value: float) -> list[float]:
    """The options just left and right of ``value`` (what a key press reaches next)."""
    options = list(options)
    i = options.index(value)
    return [options[j] for j in (i - 1, i + 1) if 0 <= j < len(options)]


def next_positions(sliders: dict, *, state_key: str) -> list[tuple[str, object]]:
    """Slider positions one key press away, for :meth:`FigureStore.prefetch`.

    ``sliders`` maps a name to ``(options, current value)``. The slider that
    moved since the page's previous run (remembered in ``st.session_state``
    under ``state_key``) is the one stepped, with the position in the
    direction it moved first; if none moved, the first slider of ``sliders``.
    Returns ``[(name, value), ...]`` (at most two entries).
    """
    previous = st.session_state.get(state_key, {})
    now = {name: value for name, (_, value) in sliders.items()}
    st.session_state[state_key] = now
    moved = [name for name in now if name in previous and previous[name] != now[name]]
    name = moved[0] if moved else next(iter(sliders))
    options, value = sliders[name]
    if value not in options:
        return []
    steps = neighbours(options, value)                 # [left, right]
    if not (name in previous and previous[name] > value):
        steps.reverse()                                # moving right (or unknown): right first
    return [(name, v) for v in steps]


MAX_FIGURE_WIDTH = 900   # px: wider than this a figure is only blown up (blurry, huge text)


def show_figure(png: bytes, alt: str) -> None:
    """Show a cached PNG at the width of its column, but never wider than
    ``MAX_FIGURE_WIDTH`` pixels (nor wider than the PNG itself)."""
    st.image(png, width=min(MAX_FIGURE_WIDTH, _png_width(png)), alt=alt)


def _png_width(png: bytes) -> int:
    """Pixel width from a PNG's IHDR chunk (bytes 16-19, big-endian)."""
    return int.from_bytes(png[16:20], "big")
