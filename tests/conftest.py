"""Shared test configuration.

Hypothesis runs derandomized (a fixed seed per test) so that CI is
reproducible; statistical tests pass explicit seeds to ``rng=``.
"""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile(
    "dpteach",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dpteach")

# tqdm progress bars stay quiet in tests
os.environ.setdefault("TQDM_DISABLE", "1")
