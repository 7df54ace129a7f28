"""Plotting functions shared by the notebooks and the app.

Each function takes the parameters (and optionally ``ax=``) and returns a
matplotlib ``Figure``. One submodule per topic; the public names are
re-exported here.
"""

from ._style import PALETTE, new_axes  # noqa: F401
