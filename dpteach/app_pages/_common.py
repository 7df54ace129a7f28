"""Helpers shared by the app's pages.

* log-scale sliders for ε, δ and similar parameters that span decades, each
  with a caption saying which end is more private;
* :func:`friendly_errors`, which turns the :class:`~dpteach._validation.ParameterError`
  that dpteach raises for a combination the mathematics does not allow into an
  ``st.warning`` (never a traceback); any other exception is a bug and
  propagates, so the tests see it;
* :func:`show_chart`, which hands a figure's data to the browser (Vega-Lite),
  so a slider move costs only the (cached) computation behind it;
* :func:`freeze_long_lived_objects`, called once per server process by app.py.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Iterator, Sequence

import streamlit as st

from .._validation import ParameterError
from ..plots.figure import to_vega_lite

#: ε values for sliders: about six per decade from 0.01 to 10 (a 1-1.5-2-3-5-7 series).
EPSILONS: tuple[float, ...] = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)
) + (10.0,)

#: δ values: 0 (pure DP) and the powers of ten from 1e-10 to 1e-2.
DELTAS: tuple[float, ...] = (0.0,) + tuple(10.0 ** -k for k in range(10, 1, -1))

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


def show_chart(data, alt: str, *, height: int = 340) -> None:
    """Draw a :class:`~dpteach.plots.figure.FigureData` in the browser (Vega-Lite).

    The server sends the chart's numbers (a few kB), not a picture: the browser
    draws it, at the column's width and in the palette and fonts of
    :func:`dpteach.plots.figure.to_vega_lite`, so a slider move costs only the
    computation behind the data (which pages cache with ``st.cache_data``).
    """
    st.vega_lite_chart(spec=to_vega_lite(data, height=height), width="stretch", theme=None,
                       alt=alt)


_FROZEN = False


def freeze_long_lived_objects() -> None:
    """Move everything alive now out of the garbage collector's view, once per process.

    Called by ``app.py`` after the first run has imported the pages. The imported
    modules (NumPy, SciPy, pandas, Streamlit, dpteach: a few hundred thousand objects)
    live as long as the server, yet without this every full collection walks all of
    them, 100-170 ms during a rerun on a small machine. ``gc.freeze()`` (Python ≥ 3.7)
    puts them in a permanent generation; objects made by later reruns are collected
    as usual. Doing it once bounds what is frozen to the start-up state.
    """
    global _FROZEN
    if not _FROZEN:
        gc.collect()
        gc.freeze()
        _FROZEN = True
