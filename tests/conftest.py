"""Shared test configuration.

Hypothesis runs derandomized (a fixed seed per test) so that CI is
reproducible; statistical tests pass explicit seeds to ``rng=``.
"""

import os

import matplotlib
import pytest
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
# `make test` runs `pytest -n 2 --dist loadfile --no-loadscope-reorder`, with the scheduler
# below: xdist hands out work units in collection order, each to the first free worker.
#
# * A unit is a file (its module fixtures are built once; a notebook's cells run in order
#   in one kernel), except that each student edition's run is a unit of its own and each
#   notebook graded by tests/notebooks/test_grading.py is one: these are the long,
#   independent pieces, and a file of them on one worker left the other idle for minutes.
#   (Units are cut from node ids here rather than by xdist_group marks: with pytest 9.2,
#   `--dist loadgroup` ignores the marks, pytest-xdist issue #1386.)
# * Units run longest first (the Binder environment's build and runs, the graded batches,
#   the student editions, the browsers, the notebooks), then the rest in collection order:
#   a long unit started last would keep one worker busy after the other has finished.

#: tests whose parametrized cases are units of their own (each a whole notebook run)
SPREAD = ("tests/notebooks/test_student_editions.py::"
          "test_student_edition_runs_and_every_check_says_not_done[",)
#: files whose cases are grouped by their parameter (one graded notebook each)
BY_PARAMETER = ("tests/notebooks/test_grading.py",)
#: path prefixes of the long units, longest first
LONG_FIRST = ("tests/notebooks/test_binder_env.py", "tests/notebooks/test_grading.py",
              "tests/notebooks/test_student_editions.py", "tests/browser/", "tests/book/",
              "tests/notebooks/test_binder.py", "notebooks/", "tests/notebooks/",
              "tests/test_domains.py")


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to, from its node id."""
    path = nodeid.split("::", 1)[0]
    if nodeid.startswith(SPREAD):
        return nodeid
    if path in BY_PARAMETER and nodeid.endswith("]"):
        return path + "[" + nodeid.rsplit("[", 1)[1]
    return path


def pytest_collection_modifyitems(config, items):
    def rank(item):
        path = item.nodeid.split("::")[0]
        return next((i for i, prefix in enumerate(LONG_FIRST) if path.startswith(prefix)),
                    len(LONG_FIRST))

    items.sort(key=rank)          # stable: collection order within a rank


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return WorkUnits(config, log)
