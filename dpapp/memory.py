"""Memory: the long-lived objects of a server process, kept out of the garbage collector."""

from __future__ import annotations

import gc
import sys

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
