"""Running a notebook with nbclient without its occasional stall after a widget cell.

nbclient (0.10-0.11) waits for a cell's ``execute_reply`` with one long
``shell_channel.get_msg(timeout=<cell timeout>)`` and for its outputs with
``iopub_channel.get_msg(timeout=None)``. With the asyncio client these are woken by
pyzmq's edge-triggered file descriptor; now and then the wake-up is missed and the
message already waiting in the socket is read only when the wait's timeout has passed
(nbclient issue #312). We saw it after ipywidgets ``interactive`` cells that draw a
figure: 2 of the 15 notebooks the course then had, in one run of
tests/notebooks/test_binder_env.py, took 180-300 s for such a cell, and ``otter run`` on
notebook 02 (now 03, randomized response) stalls at its first ``interactive`` cell in
about 1 grading in 5-10: otter runs cells with no timeout at all, so there the wait
never ends (docs/exercises.md, "Grading submissions"). Polling in short slices asks the
socket again every ``POLL_SLICE`` seconds, which reads such a message at once; the
overall timeouts stay what the caller asked for.

Used by the tests (tests/notebooks/test_student_editions.py) and by grading
(scripts/_grade_one.py). Standalone on purpose (nbclient and the standard library only):
tests/notebooks/test_binder_env.py copies this file next to the runner it starts with the Binder
environment's Python.
"""

from __future__ import annotations

import time
from queue import Empty

#: longest single wait on a kernel channel, in seconds
POLL_SLICE = 0.5


def _sliced(get_msg):
    """``get_msg`` (an async channel's) that waits at most POLL_SLICE at a time."""

    async def get_msg_in_slices(timeout=None, **kwargs):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SLICE if deadline is None else max(
                0.0, min(POLL_SLICE, deadline - time.monotonic()))
            try:
                return await get_msg(timeout=left, **kwargs)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    return get_msg_in_slices


def poll_in_slices(kernel_client) -> None:
    """Make ``kernel_client``'s shell and IOPub channels poll in short slices."""
    for channel in (kernel_client.shell_channel, kernel_client.iopub_channel):
        if not getattr(channel.get_msg, "_dpteach_sliced", False):
            sliced = _sliced(channel.get_msg)
            sliced._dpteach_sliced = True
            channel.get_msg = sliced


def execute(client) -> None:
    """``client.execute()`` (an nbclient ``NotebookClient``) with sliced polling."""
    previous = client.on_notebook_start

    def start(notebook):
        poll_in_slices(client.kc)
        if previous is not None:
            return previous(notebook=notebook)
        return None

    client.on_notebook_start = start
    client.execute()
