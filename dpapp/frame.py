"""The classroom frame around every page: presentation mode, presets, "Share this view".

:func:`classroom_frame` (run by ``app.py`` around every page) draws a bar above the page
with the **presentation mode** toggle (``?present=true``: larger fonts and figures,
secondary controls folded away), the page's **presets** (its ``PRESETS`` dict: name →
widget values; choosing one sets the widgets and so the address) and **Share this view**
(the link of the current view, also as a path); under the bar, one caption line names the
notebook the page goes with (the page's ``NOTEBOOK``, a file stem of ``notebooks/``).
:func:`secondary` folds the controls a lecture can do without; :func:`tradeoff` shows the
page's trade-off in one plain sentence.

A page uses the app's helpers like this (see ``app.py`` for adding a page)::

    PRESETS = {"ε = 0.1 vs ε = 10": {"epsilon": 0.1}, ...}     # keys: the widgets' keys
    NOTEBOOK = "04_laplace_and_gaussian"                         # the notebook it goes with

    def render():
        epsilon = epsilon_slider()                       # bound to ?epsilon=
        with secondary("Sensitivity"):                   # folded in presentation mode
            sensitivity = log_slider("Sensitivity Δ", SENSITIVITIES, 1.0, key="sensitivity")
        tradeoff(f"ε = {fmt(epsilon)}: ...")
        show_chart(cached_data(epsilon, sensitivity), "alt text")
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from dpapp.widgets import begin_view, bound_toggle, current_view

#: Key (and query parameter) of the presentation-mode toggle.
PRESENT_KEY = "present"
#: Key of the preset selector (not in the address: the widgets it sets are).
PRESET_KEY = "_dpteach_preset"
#: Presentation mode's style: larger text everywhere (Streamlit sizes text in rem).
PRESENTATION_CSS = """<style>
html { font-size: 21px; }
[data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stMainBlockContainer"] { padding: 0.5rem 2rem 2rem 2rem;
                                       max-width: 100%; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.9rem; padding-top: 0.2rem; }
[data-testid="stColumn"] [data-testid="stMetricValue"] { font-size: 2.1rem; }
[data-testid="stColumn"] [data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
[data-testid="stColumn"] [data-testid="stColumn"] { min-width: 10rem; }
[data-testid="stHeader"] { display: none; }
.st-key-dpteach_menu { gap: 0.1rem 1.2rem; }
.st-key-dpteach_menu [data-testid="stMarkdownContainer"] p,
.st-key-dpteach_menu [data-testid="stPageLink"] p { font-size: 0.66rem; line-height: 1.3; }
.st-key-dpteach_menu [data-testid="stPageLink-NavLink"] { padding: 0 0.3rem; margin: 0; }
</style>"""


#: Key of presentation mode's page menu (its CSS class is ``st-key-dpteach_menu``).
MENU_KEY = "dpteach_menu"
#: Presentation mode: widths of the page's column (title, controls, numbers) and of its
#: charts' column.
PRESENTATION_COLUMNS = (0.38, 0.62)
#: Presentation mode: the most number tiles a page shows unfolded (see :func:`tiles`).
MAX_TILES = 4

_SLOTS = threading.local()     # each session's script runs in its own thread
#: The course's notebooks (the page's ``NOTEBOOK`` is a file stem here).
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
#: A notebook title longer than this is cut at its first comma (one short caption line).
SHORT_TITLE = 60


def chart_column():
    """Where charts go: the charts' column in presentation mode, else None (in place)."""
    return getattr(_SLOTS, "charts", None)


def tiles(items: Sequence[tuple], *, border: bool = True, fold_label: str = "More numbers",
          fold_all: bool = False) -> None:
    """A row of number tiles, most important first: ``items`` are ``(label, value, help)``,
    optionally followed by ``st.metric``'s ``delta`` and ``delta_color``.

    In presentation mode a page shows at most :data:`MAX_TILES` tiles in all (its first
    ones, two to a row in the page's narrow column); the rest are folded under
    ``fold_label`` (all of them with ``fold_all``: numbers a lecture can do without).
    Otherwise one row.
    """
    items = list(items)
    if not presenting():
        _tile_rows(items, len(items), border)
        return
    budget = 0 if fold_all else getattr(_SLOTS, "tiles_left", MAX_TILES)
    _tile_rows(items[:budget], 2, border)
    _SLOTS.tiles_left = getattr(_SLOTS, "tiles_left", MAX_TILES) - min(budget, len(items))
    if items[budget:]:
        with st.expander(fold_label, expanded=False, icon=":material/tune:"):
            _tile_rows(items[budget:], 2, border)


def _tile_rows(items: list[tuple], per_row: int, border: bool) -> None:
    for start in range(0, len(items), per_row):
        row = items[start:start + per_row]
        # a border per tile, not per column: a short last row has no empty box
        for column, (label, value, help_, *change) in zip(st.columns(per_row), row):
            column.container(border=border).metric(
                label, value, help=help_, delta=change[0] if change else None,
                delta_color=change[1] if len(change) > 1 else "normal")


def presenting() -> bool:
    """True in presentation mode (the toggle of :func:`presentation_toggle`)."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def presentation_requested() -> bool:
    """Presentation mode, as known before the toggle is drawn (for ``st.navigation``): the
    toggle's value from the last run, or on a first visit the link's ``?present=``."""
    if PRESENT_KEY in st.session_state:
        return presenting()
    return st.query_params.get(PRESENT_KEY, "false").lower() == "true"


def page_menu(parts: Mapping[str, Sequence[Any]]) -> None:
    """Presentation mode's navigation: every page as a small link, grouped by course part
    (``parts``: part name → its pages, ``st.Page`` objects), in one block above the page, so
    any page is one click away and nothing is folded behind a "more" menu. Presentation
    mode stays on across the pages (the toggle's state, and so ``?present=true``)."""
    with st.container(horizontal=True, gap=None, key=MENU_KEY):
        for part, pages in parts.items():
            with st.container(horizontal=True, width="content", gap=None,
                              vertical_alignment="center"):
                st.markdown(f"**{part}:**", width="content")
                for page in pages:
                    st.page_link(page, icon="")


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


@functools.lru_cache(maxsize=None)
def notebook_caption(stem: str) -> str:
    """"Goes with notebook 04, Laplace and Gaussian noise" for ``04_laplace_and_gaussian``:
    the number of the file and the title of its first heading ("# 04 · Title: subtitle"),
    without its subtitle; read once per server. Without the file, the number only."""
    number = stem.split("_", 1)[0]
    try:
        nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"Goes with notebook {number}"
    heading = next((line for cell in nb.get("cells", []) if cell.get("cell_type") == "markdown"
                    for line in "".join(cell.get("source", "")).splitlines()
                    if line.startswith("# ")), "")
    title = re.sub(r"^#\s*\d+\s*·\s*", "", heading).strip()
    title = re.sub(r"^Going further:\s*", "", title)
    title = title.split(":", 1)[0].strip()
    if len(title) > SHORT_TITLE:
        title = title.split(",", 1)[0].strip()
    title = title[:1].upper() + title[1:]
    return f"Goes with notebook {number}, {title}" if title else f"Goes with notebook {number}"


def classroom_frame(run_page: Callable[[], Any], *, presets: Mapping | None = None,
                    url_path: str = "", notebook: str | None = None,
                    menu: Mapping[str, Sequence[Any]] | None = None) -> None:
    """Run one page inside the classroom bar (what ``app.py`` does for every page).

    Above the page: the presentation-mode toggle, the page's presets and "Share this
    view"; under it, one caption line naming ``notebook`` (a file stem of ``notebooks/``,
    the page's ``NOTEBOOK``), if given. The presets and the link are filled in after the
    page has run, from the values its widgets show, so the highlighted preset and the link
    are exact. In presentation mode, ``menu`` (course part → pages) is drawn above the bar
    by :func:`page_menu` (``app.py`` then hides Streamlit's own navigation).
    """
    begin_view()
    menu_slot = st.container()
    bar = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    with bar:
        presentation_toggle()
        presets_slot = st.container(width="content")
        share_slot = st.container(width="content")
    if notebook:
        st.caption(notebook_caption(notebook))
    if presenting():
        # A projector's screen is wide and short: the page's title, controls and numbers
        # in a column on the left, its charts stacked on the right from the top, so the
        # main chart is on the first screen (see chart_column()).
        text_side, chart_side = st.columns(PRESENTATION_COLUMNS, gap="large")
        _SLOTS.charts, _SLOTS.tiles_left = chart_side, MAX_TILES
        try:
            with text_side:
                run_page()
        finally:
            _SLOTS.charts = None
    else:
        run_page()
    if menu and presenting():
        with menu_slot:
            page_menu(menu)
    with presets_slot:
        preset_picker(presets or {})
    with share_slot:
        share_box(url_path)
