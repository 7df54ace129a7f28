"""The instructor app's pages and their shared parts (run it with ``make app``; ``app.py``).

One module per page (each with a ``render()``), and the parts every page uses, one concern
each: :mod:`dpapp.widgets` (controls bound to the address bar), :mod:`dpapp.frame`
(presentation mode, presets, "Share this view"), :mod:`dpapp.charts` (charts and their
downloads), :mod:`dpapp.messages` (friendly errors) and :mod:`dpapp.memory`.
The mathematics and the figures' data come from :mod:`dpteach`; nothing here is imported
by it.
"""
