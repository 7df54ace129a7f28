"""Jupyter server configuration for Binder: serve the dpteach Streamlit app.

jupyter-server-proxy starts ``streamlit run app.py`` the first time someone
opens ``<server base url>streamlit/`` (the README's Binder badge uses
``?urlpath=streamlit/``) and forwards HTTP and websocket traffic to it. The
launcher also shows a "dpteach app" tile.

``absolute_url=True`` makes the proxy pass the full path (``/user/<id>/streamlit/...``)
to Streamlit, which is told to live under that path with
``--server.baseUrlPath``; its pages, static files and websocket are then all
reachable through the proxy. ``binder/postBuild`` makes Jupyter load this file.
"""

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"

c = get_config()  # noqa: F821  (injected by traitlets when Jupyter reads this file)

c.ServerProxy.servers = {
    "streamlit": {
        "command": [
            sys.executable, "-m", "streamlit", "run", str(APP),
            "--server.port={port}",
            "--server.address=127.0.0.1",
            "--server.headless=true",
            "--server.baseUrlPath={base_url}streamlit",
            "--server.fileWatcherType=none",
            "--browser.gatherUsageStats=false",
        ],
        # two glibc malloc arenas, as `make app` (Makefile): without it a class of sessions,
        # each in its own thread, leaves the server with 1.2x the memory (benchmarks/README.md)
        "environment": {"MALLOC_ARENA_MAX": "2"},
        "absolute_url": True,
        "timeout": 120,          # first start on a busy Binder node can be slow
        "launcher_entry": {"title": "dpteach app", "enabled": True},
        "new_browser_tab": True,
    },
}
