"""The release-comparison figure of notebook 24: true counts and releases as grouped bars.

The bars must show exactly the numbers given (a figure that moved or rounded a count would
misreport the noise), one group per category in the given order, the category names under
the groups. The domains of the arguments are tested by tests/test_domains.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.plots.practice import plot_release_comparison, release_comparison_data

CATEGORIES = ("HS-grad", "Bachelors", "Doctorate")
TRUE = [137, 47, 11]
RELEASES = {"dpteach": [136.2, 49.9, 8.7], "OpenDP": [139, 45, -2]}


def test_the_bars_are_the_numbers_given_one_group_per_category():
    data = release_comparison_data(CATEGORIES, TRUE, RELEASES, 0.5, "education")
    assert [s.key for s in data.series] == ["true", "release-0", "release-1"]
    assert [s.label for s in data.series] == ["true counts", "dpteach", "OpenDP"]
    np.testing.assert_array_equal(data.series_by_key("true").y, TRUE)
    np.testing.assert_array_equal(data.series_by_key("release-0").y, RELEASES["dpteach"])
    np.testing.assert_array_equal(data.series_by_key("release-1").y, RELEASES["OpenDP"])
    # three bars per category, side by side and centred on the category's position
    x = np.stack([s.x for s in data.series])
    width = data.series[0].width
    assert width == pytest.approx(0.8 / 3)
    np.testing.assert_allclose(x.mean(axis=0), np.arange(3))
    np.testing.assert_allclose(np.diff(x, axis=0), width)
    assert data.extra["categories"] == CATEGORIES
    assert "ε = 0.5" in data.title and data.x_title == "education"


def test_counts_must_match_the_categories():
    with pytest.raises(ParameterError, match="true_counts.*releases"):
        release_comparison_data(CATEGORIES, TRUE[:2], RELEASES, 1.0)
    with pytest.raises(ParameterError, match=r"categories has 3"):
        release_comparison_data(CATEGORIES, TRUE, {"dpteach": [1.0, 2.0]}, 1.0)


def test_the_matplotlib_figure_names_the_categories():
    fig = plot_release_comparison(CATEGORIES, TRUE, RELEASES, 0.5, "education")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(CATEGORIES)
    heights = {gid: [p.get_height() for p in ax.patches if p.get_gid() == gid]
               for gid in ("true", "release-0", "release-1")}
    assert heights == {"true": TRUE, "release-0": RELEASES["dpteach"],
                       "release-1": RELEASES["OpenDP"]}
    assert ax.get_legend() is not None
