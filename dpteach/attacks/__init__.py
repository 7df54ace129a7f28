"""Attacks that show why anonymisation and aggregation fail, and what DP buys."""
from . import differencing  # noqa: F401
from . import roc  # noqa: F401
from . import membership  # noqa: F401
