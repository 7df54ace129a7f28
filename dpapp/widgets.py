"""Widgets whose value lives in the address bar, and the number formats of the pages.

Every control of a page is made by one of the ``bound_*`` helpers (or by
:func:`log_slider`, :func:`epsilon_slider`, :func:`delta_slider`, which use them). Each is
Streamlit's widget with ``bind="query-params"``: its ``key`` is the query parameter, the
widget starts from the link's value (``/composition?eps0=0.5``) and the browser's address
bar follows every move, so a copied address reopens exactly the view on the projector
(values equal to the default are left out of the address, as Streamlit does). A value the
widget cannot take (``?epsilon=banana``, ``?epsilon=0.25`` between two positions, a number
outside the range) falls back to the default with a friendly note, never a traceback. Keys
must be unique across the pages (a test checks it): Streamlit carries a parameter over to
the next page when that page binds the same key.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from dpteach._validation import ParameterError

#: ε values for sliders: about six per decade from 0.01 to 10 (a 1-1.5-2-3-5-7 series).
EPSILONS: tuple[float, ...] = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)
) + (10.0,)
#: δ values: 0 (pure DP) and the powers of ten from 1e-10 to 1e-2.
DELTAS: tuple[float, ...] = (0.0,) + tuple(10.0 ** -k for k in range(10, 1, -1))
PRIVACY_CAPTION = "← more private | less private →"
#: Streamlit's binding of a widget to the query parameter named by its key.
BIND = "query-params"
#: Session-state key of this run's view: widget key → (value, text in the address or None).
VIEW_KEY = "_dpteach_view"


def fmt(x: float, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, e.g. ``fmt(2/3) == '0.6667'``."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def fmt_delta(delta: float) -> str:
    """``0`` for pure DP, otherwise ``1e-05`` style (``10⁻⁵`` reads badly in a slider)."""
    return "0 (pure DP)" if delta == 0 else f"{delta:.0e}"


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
