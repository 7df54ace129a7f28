"""Charts: FigureData drawn by the browser, larger on a projector, each with a download.

:func:`show_chart` draws a :class:`~dpteach.plots.figure.FigureData` (the data function of
a ``dpteach.plots`` chapter) in the browser, larger in presentation mode, with a **Download
this figure** button whose file (a PNG drawn by matplotlib from the same data) is made only
when it is clicked.
"""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
import threading
import unicodedata
from collections.abc import Callable
from typing import Any

import streamlit as st

from dpapp.frame import chart_column, presenting
from dpteach._validation import ParameterError
from dpteach.plots.figure import to_matplotlib, to_vega_lite

#: Presentation mode: chart fonts and heights are multiplied by these.
FONT_SCALE = 1.35
HEIGHT_SCALE = 1.4
#: Resolution of the downloaded PNG figures (dots per inch).
PNG_DPI = 200


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
    """``spec`` for a projector: fonts times ``font``, the chart's height (each panel's, in a
    chart of panels) times ``height``."""
    out = _scaled(spec, font)
    for view in [out, *out.get("vconcat", [])]:
        if isinstance(view.get("height"), (int, float)):
            view["height"] = round(view["height"] * height)
    return out


#: On a projector, chart titles are wrapped at this many characters a line (a title is
#: never shortened with "…"): what fits the charts' column of a 1366-pixel screen in the
#: enlarged title font. Outside presentation mode titles keep their own line breaks.
TITLE_CHARACTERS = {False: 10**6, True: 56}      # {presentation mode: characters}
#: Axis titles longer than this are wrapped into lines: a y axis title must fit beside the
#: plot's height, also with a projector's larger fonts.
AXIS_TITLE_CHARACTERS = 28


def _lines(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def _readable(node, title_chars: int, presenting_: bool):
    """A copy of a Vega-Lite (sub)specification in which no text is cut or shortened:
    long axis titles wrapped; in presentation mode (larger fonts) titles wrapped into lines
    of at most ``title_chars`` characters and legend labels whole — a method's name must be
    read whole, however long — in one column under the chart."""
    if isinstance(node, list):
        return [_readable(v, title_chars, presenting_) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k == "data":
            out[k] = v
        elif k == "title" and isinstance(v, dict) and "text" in v and presenting_:
            lines = v["text"] if isinstance(v["text"], list) else [v["text"]]
            wrapped = [p for line in lines for p in _lines(line, title_chars)]
            out[k] = {**v, "text": wrapped if len(wrapped) > 1 else wrapped[0]}
        elif k in ("x", "y") and isinstance(v, dict) and isinstance(v.get("title"), str) \
                and len(v["title"]) > AXIS_TITLE_CHARACTERS:
            out[k] = {**_readable(v, title_chars, presenting_),
                      "title": _lines(v["title"], AXIS_TITLE_CHARACTERS)}
        elif k == "labelLimit" and presenting_:
            out[k] = 0
        else:
            out[k] = _readable(v, title_chars, presenting_)
    if presenting_ and out.get("orient") == "bottom" and "labelLimit" in out:
        out["columns"] = 1
    return out


def sent_spec(data, *, height: int = 340, presentation: bool = False) -> dict:
    """The Vega-Lite specification :func:`show_chart` sends the browser for ``data``:
    :func:`~dpteach.plots.figure.to_vega_lite`'s, with no text cut (see
    :func:`_readable`), overlapping ticks thinned, enlarged in presentation mode."""
    spec = _readable(to_vega_lite(data, height=height), TITLE_CHARACTERS[presentation],
                     presentation)
    config = spec.get("config")
    if isinstance(config, dict) and isinstance(config.get("axis"), dict):
        # tick labels that would overlap (1,000 2,000 3,000 on a log axis) are thinned out
        spec["config"] = {**config, "axis": {**config["axis"], "labelOverlap": "greedy"}}
    return enlarge(spec) if presentation else spec


def _chart_place():
    """The charts' column in presentation mode (charts stacked beside the page's text),
    else the place the page is drawing in."""
    column = chart_column()
    return column if column is not None else contextlib.nullcontext()


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


def download_figure(name: str, *, figure: Callable[[], Any] | None = None) -> None:
    """A "Download this figure" button: a PNG drawn by ``figure()`` (a matplotlib figure
    of the same data), named after the chart's title ``name``.

    The file is made only when the button is clicked (Streamlit's deferred download),
    so a slider move costs nothing for it; clicking does not rerun the page.
    """
    if not callable(figure):
        raise ParameterError(f"download_figure needs figure=, a function drawing the "
                             f"matplotlib figure; got figure={figure!r:.60}")
    st.download_button("Download this figure", data=lambda: figure_png(figure),
                       file_name=f"{_slug(name)}.png", mime="image/png",
                       icon=":material/download:", type="tertiary", on_click="ignore",
                       help="A PNG of this figure (drawn by matplotlib from the same numbers).")


def show_chart(data, alt: str, *, height: int = 340, download: bool = True) -> None:
    """Draw a :class:`~dpteach.plots.figure.FigureData` in the browser (Vega-Lite).

    The server sends the chart's numbers (a few kB), not a picture: the browser
    draws it, at the column's width and in the palette and fonts of
    :func:`dpteach.plots.figure.to_vega_lite` (larger in presentation mode), so a slider
    move costs only the computation behind the data (which pages cache with
    ``st.cache_data``). Below it, a "Download this figure" button (a PNG drawn by
    :func:`~dpteach.plots.figure.to_matplotlib` when clicked).
    """
    with _chart_place():
        st.vega_lite_chart(spec=sent_spec(data, height=height, presentation=presenting()),
                           width="stretch", theme=None, alt=alt)
        if download:
            download_figure(data.title, figure=lambda: to_matplotlib(data))
