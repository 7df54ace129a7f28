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


# ------------------------------------------------------------------ two workers, kept busy
# `make test` runs `pytest -n 2 --dist loadgroup --no-loadscope-reorder`: xdist hands out
# work units in the order below, each unit to the first free worker.
#
# * A unit is a file (its module fixtures are built once; a notebook's cells run in order
#   in one kernel), except that each student edition's run is a unit of its own and each
#   notebook graded by tests/notebooks/test_grading.py is one: these are the long, independent
#   pieces, and a file of them on one worker left the other idle for minutes.
# * Units run longest first (the Binder environment's build and runs, the graded batches,
#   the student editions, the browsers, the notebooks), then the rest in collection order:
#   a long unit started last would keep one worker busy after the other has finished.

#: tests whose parametrized cases are units of their own (each a whole notebook run)
SPREAD = {"test_student_edition_runs_and_every_check_says_not_done"}
#: path prefixes of the long units, longest first
LONG_FIRST = ("tests/notebooks/test_binder_env.py", "tests/notebooks/test_grading.py",
              "tests/notebooks/test_student_editions.py", "tests/browser/", "tests/book/",
              "tests/notebooks/test_binder.py", "notebooks/", "tests/notebooks/",
              "tests/test_domains.py")


def pytest_collection_modifyitems(config, items):
    import pytest

    def rank(item):
        path = item.nodeid.split("::")[0]
        return next((i for i, prefix in enumerate(LONG_FIRST) if path.startswith(prefix)),
                    len(LONG_FIRST))

    for item in items:
        group = item.nodeid.split("::")[0]
        if getattr(item, "originalname", None) in SPREAD:
            continue
        if "batch" in getattr(item, "fixturenames", ()) and hasattr(item, "callspec"):
            group += f"::{item.callspec.params.get('batch')}"
        item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=rank)          # stable: collection order within a rank
