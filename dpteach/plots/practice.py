"""Figures for DP in practice: one histogram, released by two libraries, beside the truth.

A histogram over categories fixed in advance (the categories are public: written down
before anyone looks at the data) is released by adding independent noise to every count.
Under add/remove-one neighbours one person changes one count by one, so the ℓ1
sensitivity is 1 and ``Lap(1/ε)`` noise in every bin gives ε-DP ([DR14]_, Thm 3.6 and
Sec. 3.3, "histogram queries"). The figure puts the true counts and each release side
by side, bar by bar: the noise is the gap between a release's bar and the true one.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential Privacy*.
   Foundations and Trends in TCS 9(3-4), 2014.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import EPSILON, Domain, array, refuse, validate
from ._style import PALETTE, labelled, names
from .figure import FigureData, Rule, Series, drawn

__all__ = ["release_comparison_data", "plot_release_comparison"]

#: most categories a histogram figure shows (beyond that the labels cannot be read)
MAX_CATEGORIES = 60
#: most releases drawn beside the true counts
MAX_RELEASES = 4

CATEGORIES = names(MAX_CATEGORIES, f"1 to {MAX_CATEGORIES} distinct, non-empty category names "
                   "(strings)", distinct=True, example=("a", "b", "c"),
                    bad=["abc", None, 3, [], ["a", "a"], ["a", 2], [""]])
#: true counts: whole numbers of people
TRUE_COUNTS = array(ndim=1, low=0, high=1e12, integers=True, max_size=MAX_CATEGORIES,
                    example=[12, 40, 7])
#: one release: a noisy count per category (it may be negative)
RELEASE = array(ndim=1, low=-1e12, high=1e12, max_size=MAX_CATEGORIES)
RELEASES = labelled(RELEASE, MAX_RELEASES, f"a dict of 1 to {MAX_RELEASES} releases, "
                    "{label: 1-D array of finite numbers in [-1e12, 1e12]}",
                    example={"released": [11.2, 41.7, 5.9]},
                  bad=[None, [1.0], {}, {"x": "abc"}, {"x": [np.nan]}, {3: [1.0]},
                       {f"r{i}": [1.0] for i in range(MAX_RELEASES + 1)}])
X_TITLE = Domain("a text of 1 to 80 characters", lambda name, value: _title(name, value),
                 example="category", bad=[None, 3, "", "x" * 81])
RELEASE_COLOURS = (PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["purple"])


@validate(categories=CATEGORIES, true_counts=TRUE_COUNTS, releases=RELEASES, epsilon=EPSILON,
          x_title=X_TITLE)
def release_comparison_data(categories, true_counts, releases, epsilon: float,
                            x_title: str = "category") -> FigureData:
    """The true counts of a histogram and its noisy releases, as grouped bars.

    ``releases`` is ``{label: released counts}`` (a library's name, say), one noisy count
    per category, which may be negative; ``epsilon`` is what each release spends; ``x_title``
    says what the categories are. Bars ``true`` and ``release-0``, ``release-1``, …;
    ``extra["categories"]``.
    """
    k = len(categories)
    if true_counts.size != k or any(r.size != k for r in releases.values()):
        raise refuse("true_counts, releases", releases, f"{k} counts each (categories has {k})")
    groups = 1 + len(releases)
    width = 0.8 / groups
    x = np.arange(k, dtype=float)
    offsets = (np.arange(groups) - (groups - 1) / 2) * width
    series = [Series("true", "true counts", x + offsets[0], true_counts, kind="bars",
                     colour=PALETTE["black"], width=width, opacity=0.55)]
    for i, (label, counts) in enumerate(releases.items()):
        series.append(Series(f"release-{i}", label, x + offsets[i + 1], counts, kind="bars",
                             colour=RELEASE_COLOURS[i], width=width))
    return FigureData(title=f"True counts and releases with ε = {epsilon:g} each",
                      x_title=x_title, y_title="count (number of people)",
                      series=tuple(series), rules=(Rule("zero", "y", 0.0, dash="solid"),),
                      x_ticks=tuple(enumerate(categories)), y_integer=True,
                      extra={"categories": tuple(categories)})


plot_release_comparison = drawn(release_comparison_data)


# ------------------------------------------------------------------ the domains' converters
def _title(name: str, value: Any) -> str:
    if isinstance(value, str) and 1 <= len(value) <= 80:
        return value
    raise X_TITLE.refuse(name, value)
