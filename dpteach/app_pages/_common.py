"""Helpers shared by the app's pages.

Widgets whose value lives in the address bar
    Every control of a page is made by one of the ``bound_*`` helpers below (or by
    :func:`log_slider`, :func:`epsilon_slider`, :func:`delta_slider`, which use them). Each
    is Streamlit's widget with ``bind="query-params"``: its ``key`` is the query
    parameter, the widget starts from the link's value (``/composition?eps0=0.5``)
    and the browser's address bar follows every move, so a copied address reopens exactly
    the view on the projector (values equal to the default are left out of the address,
    as Streamlit does). A value the widget cannot take (``?epsilon=banana``, ``?epsilon=0.25``
    between two positions, a number outside the range) falls back to the default with a
    friendly note, never a traceback. Keys must be unique across the pages (a test checks
    it): Streamlit carries a parameter over to the next page when that page binds the
    same key.

The classroom frame (:func:`classroom_frame`, run by ``app.py`` around every page)
    A bar above the page with the **presentation mode** toggle (``?present=true``: larger
    fonts and figures, secondary controls folded away), the page's **presets** (its
    ``PRESETS`` dict: name → widget values; choosing one sets the widgets and so the
    address) and **Share this view** (the link of the current view, also as a path).

Charts
    :func:`show_chart` (a :class:`~dpteach.plots.figure.FigureData`) and :func:`show_spec`
    (a ready Vega-Lite specification) draw in the browser, larger in presentation mode,
    each with a **Download this figure** button whose file (a PNG drawn by matplotlib from
    the same data, or the Vega-Lite specification) is made only when it is clicked.

Messages
    :func:`friendly_errors` turns the :class:`~dpteach._validation.ParameterError` that
    dpteach raises for a combination the mathematics does not allow into an
    ``st.warning`` (never a traceback); any other exception is a bug and propagates, so
    the tests see it. :func:`tradeoff` shows the page's trade-off in one plain sentence.

:func:`freeze_long_lived_objects` is called once per server process by app.py.

A page uses them like this (see ``app.py`` for adding a page)::

    PRESETS = {"ε = 0.1 vs ε = 10": {"epsilon": 0.1}, ...}     # keys: the widgets' keys

    def render():
        epsilon = epsilon_slider()                       # bound to ?epsilon=
        with secondary("Sensitivity"):                   # folded in presentation mode
            sensitivity = log_slider("Sensitivity Δ", SENSITIVITIES, 1.0, key="sensitivity")
        tradeoff(f"ε = {fmt(epsilon)}: ...")
        show_chart(cached_data(epsilon, sensitivity), "alt text")
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import math
import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

from .._validation import ParameterError
from ..plots.figure import to_matplotlib, to_vega_lite

#: ε values for sliders: about six per decade from 0.01 to 10 (a 1-1.5-2-3-5-7 series).
EPSILONS: tuple[float, ...] = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)
) + (10.0,)

#: δ values: 0 (pure DP) and the powers of ten from 1e-10 to 1e-2.
DELTAS: tuple[float, ...] = (0.0,) + tuple(10.0 ** -k for k in range(10, 1, -1))

PRIVACY_CAPTION = "← more private | less private →"

#: Streamlit's binding of a widget to the query parameter named by its key.
BIND = "query-params"
#: Key (and query parameter) of the presentation-mode toggle.
PRESENT_KEY = "present"
#: Key of the preset selector (not in the address: the widgets it sets are).
PRESET_KEY = "_dpteach_preset"
#: Session-state key of this run's view: widget key → (value, text in the address or None).
VIEW_KEY = "_dpteach_view"
#: Presentation mode: chart fonts and heights are multiplied by these.
FONT_SCALE = 1.35
HEIGHT_SCALE = 1.4
#: Presentation mode's style: larger text everywhere (Streamlit sizes text in rem).
PRESENTATION_CSS = """<style>
html { font-size: 21px; }
[data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stMainBlockContainer"] { padding-left: 2rem; padding-right: 2rem;
                                       max-width: 100%; }
</style>"""
#: Resolution of the downloaded PNG figures (dots per inch).
PNG_DPI = 200


def fmt(x: float, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, e.g. ``fmt(2/3) == '0.6667'``."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def fmt_delta(delta: float) -> str:
    """``0`` for pure DP, otherwise ``1e-05`` style (``10⁻⁵`` reads badly in a slider)."""
    return "0 (pure DP)" if delta == 0 else f"{delta:.0e}"


# ------------------------------------------------------------------ widgets bound to the URL
def _record(key: str, value: Any, text: str | None) -> None:
    """Note a bound widget's value in this run's view (``text``: its query value, or None
    when it is the default and so not in the address)."""
    view = st.session_state.get(VIEW_KEY)
    if view is None:
        view = st.session_state[VIEW_KEY] = {}
    view[key] = (value, text)


def begin_view() -> None:
    """Start a new run's view (called by :func:`classroom_frame` before the page)."""
    st.session_state[VIEW_KEY] = {}


def current_view() -> dict[str, tuple[Any, str | None]]:
    """The bound widgets drawn so far in this run: key → (value, text in the address)."""
    return dict(st.session_state.get(VIEW_KEY) or {})


def _quoted(text: str) -> str:
    """A value from the address, safe to show in Markdown (a code span, at most 40 chars)."""
    text = text.replace("`", "'").replace("\n", " ")
    return f"`{text[:40]}{'…' if len(text) > 40 else ''}`"


def _write_set_value(key: str, accepts: Callable[[str], bool], default: str,
                     text_of: Callable[[Any], str]) -> None:
    """Put a value set through ``st.session_state`` (a preset) into the address, for a
    widget that is not bound yet in this session (it was not drawn in the last run).

    Streamlit writes a programmatic value to the address only for a widget that was
    already drawn; a widget that appears because of the same preset (the ε slider that
    shows only for DP noise) would keep its value out of the address and out of a
    copied link. A widget that is bound already refuses the write, and Streamlit keeps
    its address in step itself.
    """
    if key not in st.session_state or key in st.query_params:
        return
    text = text_of(st.session_state[key])
    if not isinstance(text, str) or text == default or not accepts(text):
        return
    with contextlib.suppress(StreamlitAPIException):      # bound: Streamlit's own sync
        st.query_params[key] = text


def _url_binding(key: str, label: str, accepts: Callable[[str], bool], default: str,
                 text_of: Callable[[Any], str]) -> str | None:
    """``bind`` for a widget in this run, after checking the link's value for ``key``.

    A value the widget can take (or none) → bind, and Streamlit starts the widget from
    it. Anything else → a note, the parameter is dropped from the address, and the
    widget is drawn unbound with its default this once (bound again from the next run),
    so the page shows the default and never a traceback. ``text_of`` writes a value as
    the address holds it (for :func:`_write_set_value`).
    """
    values = st.query_params.get_all(key)
    if not values:
        _write_set_value(key, accepts, default, text_of)
        return BIND
    if len(values) == 1 and accepts(values[0]):
        return BIND
    try:
        del st.query_params[key]
    except (StreamlitAPIException, KeyError):
        return BIND              # already bound: Streamlit resets an invalid value itself
    name = label.split("\n")[0].strip()
    st.info(f"The link sets **{name}** to {_quoted(values[-1])}, which is not one of its "
            f"values, so it shows the default, **{default}**.", icon=":material/link_off:")
    return None


def _number_text(v: float) -> str:
    """A number as Streamlit writes it in the address (5.0 → ``5``, 0.25 → ``0.25``)."""
    v = float(v)
    return str(int(v)) if math.isfinite(v) and v == int(v) else repr(v)


def bound_select_slider(label: str, options: Sequence, value, *, key: str,
                        format_func: Callable[[Any], str] = str, help: str | None = None,
                        caption: str | None = None):
    """``st.select_slider`` bound to ``?key=<format_func(option)>``; returns the option.

    ``value`` (the default) must be one of ``options``; the address holds the option's
    text as the slider shows it.
    """
    options = list(options)
    if value not in options:
        raise ParameterError(f"value={value!r} is not one of the slider options {options}")
    texts = {format_func(o) for o in options}
    bind = _url_binding(key, label, texts.__contains__, format_func(value), format_func)
    chosen = st.select_slider(label, options=options, value=value, key=key, help=help,
                              format_func=format_func, bind=bind)
    _record(key, chosen, None if chosen == value else format_func(chosen))
    if caption:
        st.caption(caption)
    return chosen


def bound_slider(label: str, min_value, max_value, value, step, *, key: str,
                 format: str | None = None, help: str | None = None,
                 caption: str | None = None):
    """``st.slider`` (one number) bound to ``?key=<number>``.

    A link's number must lie in [min_value, max_value] on the grid min_value + i·step;
    otherwise the default is shown, with a note.
    """
    integer = all(isinstance(v, int) for v in (min_value, max_value, value, step))

    def accepts(text: str) -> bool:
        try:
            v = float(text)
        except ValueError:
            return False
        if not math.isfinite(v) or (integer and v != int(v)):
            return False
        slack = 1e-9 * step
        if not min_value - slack <= v <= max_value + slack:
            return False
        i = (v - min_value) / step
        return abs(i - round(i)) <= 1e-6

    bind = _url_binding(key, label, accepts, _number_text(value), _number_text)
    chosen = st.slider(label, min_value, max_value, value, step, key=key, format=format,
                       help=help, bind=bind)
    _record(key, chosen, None if chosen == value else _number_text(chosen))
    if caption:
        st.caption(caption)
    return chosen


def bound_number_input(label: str, *, min_value: float, max_value: float, value: float,
                       step: float, key: str, help: str | None = None) -> float:
    """``st.number_input`` (a float) bound to ``?key=<number>`` (any number in the range)."""

    def accepts(text: str) -> bool:
        try:
            v = float(text)
        except ValueError:
            return False
        return math.isfinite(v) and min_value <= v <= max_value

    bind = _url_binding(key, label, accepts, _number_text(value), _number_text)
    chosen = st.number_input(label, min_value=min_value, max_value=max_value, value=value,
                             step=step, key=key, help=help, bind=bind)
    _record(key, chosen, None if chosen == value else _number_text(chosen))
    return chosen


def bound_radio(label: str, options: Sequence, *, key: str, index: int = 0,
                format_func: Callable[[Any], str] = str, horizontal: bool = False,
                help: str | None = None):
    """``st.radio`` bound to ``?key=<format_func(option)>``; the default is ``options[index]``."""
    options = list(options)
    texts = {format_func(o) for o in options}
    bind = _url_binding(key, label, texts.__contains__, format_func(options[index]),
                        format_func)
    chosen = st.radio(label, options, index=index, key=key, format_func=format_func,
                      horizontal=horizontal, help=help, bind=bind)
    _record(key, chosen, None if chosen == options[index] else format_func(chosen))
    return chosen


def bound_selectbox(label: str, options: Sequence, *, key: str, index: int = 0,
                    format_func: Callable[[Any], str] = str, help: str | None = None):
    """``st.selectbox`` bound to ``?key=<format_func(option)>``; default ``options[index]``."""
    options = list(options)
    texts = {format_func(o) for o in options}
    bind = _url_binding(key, label, texts.__contains__, format_func(options[index]),
                        format_func)
    chosen = st.selectbox(label, options, index=index, key=key, format_func=format_func,
                          help=help, bind=bind)
    _record(key, chosen, None if chosen == options[index] else format_func(chosen))
    return chosen


def bound_toggle(label: str, value: bool = False, *, key: str, help: str | None = None) -> bool:
    """``st.toggle`` bound to ``?key=true`` / ``?key=false``."""
    bind = _url_binding(key, label, lambda t: t.lower() in ("true", "false"),
                        str(value).lower(), lambda v: str(bool(v)).lower())
    chosen = bool(st.toggle(label, value=value, key=key, help=help, bind=bind))
    _record(key, chosen, None if chosen == value else str(chosen).lower())
    return chosen


def log_slider(label: str, options: Sequence[float], value: float, *, key: str,
               help: str | None = None, format_func=fmt,
               caption: str | None = PRIVACY_CAPTION) -> float:
    """A ``st.select_slider`` over log-spaced ``options`` returning a float, bound to the URL.

    Equal steps of the slider multiply the value by about the same factor, so
    0.01 and 10 are both reachable with a few key presses.
    """
    return float(bound_select_slider(label, options, value, key=key, format_func=format_func,
                                     help=help, caption=caption))


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


# ------------------------------------------------------------------------ presentation mode
def presenting() -> bool:
    """True in presentation mode (the toggle of :func:`presentation_toggle`)."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def presentation_toggle() -> bool:
    """The presentation-mode toggle (bound to ``?present=true``); adds its style when on."""
    on = bound_toggle("Presentation mode", key=PRESENT_KEY,
                      help="For a projector: larger text and figures, secondary controls "
                           "folded away. The link keeps it (?present=true).")
    if on:
        st.html(PRESENTATION_CSS)
    return on


@contextlib.contextmanager
def secondary(label: str = "More settings") -> Iterator[None]:
    """Controls a lecture can do without: folded in an expander in presentation mode.

    They are still drawn (folded), so they keep their values and their place in the
    address; outside presentation mode the block is drawn as usual.
    """
    if presenting():
        with st.expander(label, expanded=False, icon=":material/tune:"):
            yield
    else:
        yield


def tradeoff(text: str) -> None:
    """The page's trade-off in plain words (one or two sentences, starting with a capital),
    computed from the numbers on screen."""
    st.markdown(f":material/balance: **The trade-off.** {text}")


# ------------------------------------------------------------------------------- charts
def _scaled(node, font: float):
    """A copy of a Vega-Lite (sub)specification with every font size times ``font``
    (inline data is shared, not copied)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "data":
                out[k] = v
            elif k.endswith(("fontSize", "FontSize")) and isinstance(v, (int, float)):
                out[k] = round(v * font, 1)
            else:
                out[k] = _scaled(v, font)
        return out
    if isinstance(node, list):
        return [_scaled(v, font) for v in node]
    return node


def enlarge(spec: dict, *, font: float = FONT_SCALE, height: float = HEIGHT_SCALE) -> dict:
    """``spec`` for a projector: fonts times ``font``, the chart's height times ``height``."""
    out = _scaled(spec, font)
    if isinstance(out.get("height"), (int, float)):
        out["height"] = round(out["height"] * height)
    return out


def _draw(spec: dict, alt: str) -> None:
    if presenting():
        spec = enlarge(spec)
    st.vega_lite_chart(spec=spec, width="stretch", theme=None, alt=alt)


def _slug(title: str) -> str:
    """A file name from a chart title: ``"Laplace, ε = 1"`` → ``"laplace-epsilon-1"``."""
    words = []
    for ch in title:
        if ch.isascii():
            words.append(ch)
        elif unicodedata.category(ch).startswith("L") and "GREEK" in unicodedata.name(ch, ""):
            words.append(f" {unicodedata.name(ch).split()[-1].lower()} ")
        else:
            words.append(unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
                         or " ")
    slug = re.sub(r"[^a-z0-9.]+", "-", "".join(words).lower()).strip("-.")
    return (slug[:80].rstrip("-.") or "figure")


def _title(spec: Mapping) -> str:
    title = spec.get("title", "")
    if isinstance(title, Mapping):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(map(str, title))
    return str(title)


_RENDER_LOCK = threading.Lock()


def figure_png(make_figure: Callable[[], Any], dpi: int = PNG_DPI) -> bytes:
    """PNG bytes of the matplotlib figure ``make_figure()`` returns (then closed).

    Called only when a download button is clicked, on Streamlit's download thread; one
    figure at a time (matplotlib's figure manager is not thread-safe).
    """
    import matplotlib.pyplot as plt

    with _RENDER_LOCK:
        fig = make_figure()
        try:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
            return buf.getvalue()
        finally:
            plt.close(fig)


def download_figure(name: str, *, figure: Callable[[], Any] | None = None,
                    spec: dict | None = None) -> None:
    """A "Download this figure" button: a PNG drawn by ``figure()`` (a matplotlib figure
    of the same data), or else the Vega-Lite ``spec`` as ``.vl.json``.

    The file is made only when the button is clicked (Streamlit's deferred download),
    so a slider move costs nothing for it; clicking does not rerun the page.
    """
    slug = _slug(name)
    if figure is not None:
        data, file_name, mime = (lambda: figure_png(figure)), f"{slug}.png", "image/png"
        help_text = "A PNG of this figure (drawn by matplotlib from the same numbers)."
    elif spec is not None:
        data, file_name, mime = ((lambda: json.dumps(spec, indent=1)), f"{slug}.vl.json",
                                 "application/json")
        help_text = ("The chart as a Vega-Lite specification: JupyterLab and "
                     "https://vega.github.io/editor open it and export PNG or SVG.")
    else:
        raise ParameterError("download_figure needs figure= or spec=; got neither")
    st.download_button("Download this figure", data=data, file_name=file_name, mime=mime,
                       icon=":material/download:", type="tertiary", on_click="ignore",
                       help=help_text)


def show_chart(data, alt: str, *, height: int = 340, download: bool = True) -> None:
    """Draw a :class:`~dpteach.plots.figure.FigureData` in the browser (Vega-Lite).

    The server sends the chart's numbers (a few kB), not a picture: the browser
    draws it, at the column's width and in the palette and fonts of
    :func:`dpteach.plots.figure.to_vega_lite` (larger in presentation mode), so a slider
    move costs only the computation behind the data (which pages cache with
    ``st.cache_data``). Below it, a "Download this figure" button (a PNG drawn by
    :func:`~dpteach.plots.figure.to_matplotlib` when clicked).
    """
    _draw(to_vega_lite(data, height=height), alt)
    if download:
        download_figure(data.title, figure=lambda: to_matplotlib(data))


def show_spec(spec: dict, alt: str, *, figure: Callable[[], Any] | None = None,
              download: bool = True) -> None:
    """Draw a ready Vega-Lite specification (e.g. a chapter's ``*_spec`` function), larger
    in presentation mode, with a "Download this figure" button: a PNG of ``figure()``
    (the chapter's matplotlib function for the same arguments) if given, else the
    specification itself."""
    _draw(spec, alt)
    if download:
        download_figure(_title(spec) or alt, figure=figure, spec=spec)


# -------------------------------------------------------------------------------- messages
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


# ------------------------------------------------------------------- the classroom frame
def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return a == b


def active_preset(presets: Mapping[str, Mapping[str, Any]],
                  view: Mapping[str, tuple] | None = None) -> str | None:
    """The first preset whose every value is what its widget shows now (or None)."""
    view = current_view() if view is None else view
    for name, values in presets.items():
        if values and all(k in view and _same(view[k][0], v) for k, v in values.items()):
            return name
    return None


def _apply_preset(presets: Mapping[str, Mapping[str, Any]]) -> None:
    """Callback of the preset selector: set every widget of the chosen preset."""
    name = st.session_state.get(PRESET_KEY)
    for key, value in presets.get(name, {}).items():
        st.session_state[key] = value


def preset_picker(presets: Mapping[str, Mapping[str, Any]]) -> None:
    """The page's presets as pills; the one on screen is highlighted.

    ``presets`` maps a name ("ε = 0.1 vs 10") to widget values (widget key → value, as
    the widget returns it). Choosing one sets those widgets (and so the address).
    """
    if not presets:
        return
    st.session_state[PRESET_KEY] = active_preset(presets)
    st.pills("Presets", list(presets), selection_mode="single", key=PRESET_KEY,
             on_change=_apply_preset, args=(presets,), label_visibility="collapsed",
             help="Views prepared for this lesson: each sets the sliders below.")


def share_url(url_path: str, view: Mapping[str, tuple] | None = None) -> str:
    """The relative address of the current view: ``/<page>?<every non-default value>``."""
    view = current_view() if view is None else view
    query = urlencode([(k, text) for k, (_, text) in view.items() if text is not None])
    return "/" + url_path.strip("/") + (f"?{query}" if query else "")


def share_box(url_path: str) -> None:
    """"Share this view": the link of the page with every slider as it is now."""
    relative = share_url(url_path)
    query = relative.partition("?")[2]
    base = st.context.url                   # the page's address in the browser, no query
    with st.popover("Share this view", icon=":material/share:"):
        st.caption("This link opens this page with every slider and choice as it is now "
                   "(the address bar holds it too):")
        if base:
            full = base.rstrip("/") + ("" if url_path else "/") + (f"?{query}" if query else "")
            st.code(full, language=None)
            st.caption("The same view on any copy of the app (e.g. your own Binder): add "
                       "this to its address:")
        st.code(relative, language=None)


def classroom_frame(run_page: Callable[[], Any], *, presets: Mapping | None = None,
                    url_path: str = "") -> None:
    """Run one page inside the classroom bar (what ``app.py`` does for every page).

    Above the page: the presentation-mode toggle, the page's presets and "Share this
    view". The presets and the link are filled in after the page has run, from the
    values its widgets show, so the highlighted preset and the link are exact.
    """
    begin_view()
    bar = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    with bar:
        presentation_toggle()
        presets_slot = st.container(width="content")
        share_slot = st.container(width="content")
    run_page()
    with presets_slot:
        preset_picker(presets or {})
    with share_slot:
        share_box(url_path)


_FROZEN_AT = 0           # len(sys.modules) at the last freeze


def freeze_long_lived_objects() -> None:
    """Move everything alive now out of the garbage collector's view, whenever new modules
    have been imported since the last call (once per page and server process).

    Called by ``app.py`` after each run. The imported modules (NumPy, SciPy, pandas,
    Streamlit, dpteach: a few hundred thousand objects) live as long as the server, yet
    without this every full collection walks all of them, 100-170 ms during a rerun on a
    small machine. ``gc.freeze()`` (Python ≥ 3.7) puts them in a permanent generation;
    objects made by later reruns are collected as usual. App pages are imported when first
    shown, so this freezes at most once per page (twelve times per server), each time
    after a full collection, which bounds what is frozen to what those first runs left.
    """
    global _FROZEN_AT
    if len(sys.modules) != _FROZEN_AT:
        gc.collect()
        gc.freeze()
        _FROZEN_AT = len(sys.modules)
