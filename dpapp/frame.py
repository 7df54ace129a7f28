"""The classroom frame around every page: presentation mode, presets, "Share this view".

:func:`classroom_frame` (run by ``app.py`` around every page) draws a bar above the page
with the **presentation mode** toggle (``?present=true``: larger fonts and figures,
secondary controls folded away), the page's **presets** (its ``PRESETS`` dict: name →
widget values; choosing one sets the widgets and so the address) and **Share this view**
(the link of the current view, also as a path). :func:`secondary` folds the controls a
lecture can do without; :func:`tradeoff` shows the page's trade-off in one plain sentence.

A page uses the app's helpers like this (see ``app.py`` for adding a page)::

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
import math
from collections.abc import Callable, Iterator, Mapping
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
[data-testid="stMainBlockContainer"] { padding-left: 2rem; padding-right: 2rem;
                                       max-width: 100%; }
</style>"""


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
