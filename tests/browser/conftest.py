"""The app server shared by the browser tests of one module."""

from __future__ import annotations

import pytest
from _servers import Server, free_port, require_chromium, streamlit_args


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_chromium()
    tmp = tmp_path_factory.mktemp("streamlit")
    port = free_port()
    server = Server(streamlit_args(port), log=tmp / "streamlit.log")
    url = f"http://127.0.0.1:{port}/"
    try:
        server.wait_for(url + "_stcore/health", timeout=60,
                        expect=lambda s, b: (s, b) == (200, "ok"))
        yield url
    finally:
        server.stop()
