"""Messages: dpteach's ParameterError shown as a friendly warning, never a traceback.

:func:`friendly_errors` turns the :class:`~dpteach._validation.ParameterError` that dpteach
raises for a combination the mathematics does not allow into an ``st.warning``; any other
exception is a bug and propagates, so the tests see it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st

from dpteach._validation import ParameterError


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
