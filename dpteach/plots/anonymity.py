"""Figures for anonymisation and its failures (notebook 00).

The numbers come from :mod:`dpteach.attacks.linkage` (uniqueness, class sizes) and
:mod:`dpteach.attacks.kanonymity` (the generalised, k-anonymous tables).

References
----------
.. [Sw02] L. Sweeney. k-anonymity: a model for protecting privacy. International Journal of
   Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002.
.. [A05] C. C. Aggarwal. On k-anonymity and the curse of dimensionality. VLDB 2005.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from .._validation import Domain, array, integer, refuse, validate
from ._style import CYCLE, PALETTE, labelled
from .figure import FigureData, Rule, Series, drawn


def _words(name: str, value: Any) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise QUASI_IDENTIFIER.refuse(name, value)


#: a quasi-identifier in words, for a title ("ZIP code, birth date, sex")
QUASI_IDENTIFIER = Domain("a non-empty string (the quasi-identifier in words)", _words,
                          example="ZIP code, birth date, sex", bad=["", "  ", 3, ["zip"]])

__all__ = ["MAX_CURVES", "MAX_ATTRIBUTES", "MAX_CLASS_SIZE", "uniqueness_curve_data",
           "plot_uniqueness_curve", "class_sizes_data", "plot_class_sizes"]

#: Most curves of :func:`uniqueness_curve_data`.
MAX_CURVES = 7
#: Most attributes (points per curve) of :func:`uniqueness_curve_data`.
MAX_ATTRIBUTES = 50
#: Largest class size drawn as its own bar by :func:`class_sizes_data`.
MAX_CLASS_SIZE = 200

#: label → fraction unique after 1, 2, … attributes
CURVES = labelled(array(ndim=1, max_size=MAX_ATTRIBUTES, low=0.0, high=1.0), MAX_CURVES,
                  f"a dict of 1 to {MAX_CURVES} curves, non-empty label → 1 to {MAX_ATTRIBUTES} "
                  "fractions in [0, 1]", example={"Adult": [0.1, 0.5, 0.9]},
                  bad=[{}, {"": [0.5]}, {"a": [1.5]}, {"a": []}, {"a": "ab"}, [0.5], None])
NAMES: Domain = Domain("None or a list of attribute names (strings)",
               lambda name, value: _names(name, value), example=None, edges=(None,),
               bad=["age", [1, 2], 3])
SIZES = array(ndim=1, low=1, high=10**6, integers=True, max_size=10**6, example=[1, 2, 2, 5])


@validate(curves=CURVES, attributes=NAMES)
def uniqueness_curve_data(curves, attributes=None) -> FigureData:
    """Fraction of unique records on the first 1, 2, … attributes: the curse of
    dimensionality ([A05]_), one curve per data set or attribute order.

    ``curves`` maps a label to the fractions, entry j after j + 1 attributes (e.g.
    :func:`dpteach.attacks.linkage.uniqueness_curve`); ``attributes`` names the attributes
    in the order added, one per point of the longest curve. Series ``curve-i`` and
    ``curve-i-points``; rule ``all-unique``.
    """
    series, longest = [], 0
    for i, (label, y) in enumerate(curves.items()):
        x = np.arange(1, y.size + 1, dtype=float)
        colour = CYCLE[i % len(CYCLE)]
        series += [Series(f"curve-{i}", label, x, y, colour=colour),
                   Series(f"curve-{i}-points", "", x, y, kind="points", colour=colour)]
        longest = max(longest, y.size)
    title = "Curse of dimensionality: unique records as attributes grow"
    if attributes is not None:
        if len(attributes) != longest:
            raise refuse("attributes", attributes, f"{longest} names, one per point of the longest")
        names = [a.replace("_", " ").replace("-", " ")         # birth_date: "birth date",
                 for a in attributes]                          # marital-status: "marital status"
        title += "\n" + "\n".join(textwrap.wrap("in order: " + " + ".join(names), 60))
    return FigureData(title, "number of attributes", "fraction of records unique",
                      series=tuple(series),
                      rules=(Rule("all-unique", "y", 1.0, "", PALETTE["black"], "dotted"),),
                      x_domain=(0.5, longest + 0.5), y_domain=(0.0, 1.05), x_integer=True)


plot_uniqueness_curve = drawn(uniqueness_curve_data)


@validate(sizes=SIZES, k=integer(1, 10**6, example=5).or_none(),
          max_size=integer(1, MAX_CLASS_SIZE, example=20), name=QUASI_IDENTIFIER.or_none())
def class_sizes_data(sizes, k: int | None = None, max_size: int = 20,
                     name: str | None = None) -> FigureData:
    """Share of the rows in an equivalence class of each size, with the k of k-anonymity
    ([Sw02]_).

    ``sizes`` is the class size of every row (:func:`dpteach.attacks.linkage.class_sizes`);
    sizes above ``max_size`` are pooled in the last bar; ``name`` is the quasi-identifier in
    words (e.g. ``"ZIP code, birth date, sex"``). Bars ``rows``; rule ``k`` (rows left of it
    violate k-anonymity). ``extra``: ``unique`` (share of rows in classes of 1), ``shares``.
    """
    s = sizes
    pooled = np.minimum(s, max_size + 1).astype(np.int64)
    shares = np.bincount(pooled, minlength=max_size + 2)[1:] / s.size
    x = np.arange(1, max_size + 2, dtype=float)
    unique = float(np.mean(s == 1))
    rules = () if k is None else (
        Rule("k", "x", k - 0.5, f"k = {k}", PALETTE["vermillion"], "dashed"),)
    title = f"Equivalence classes: {unique:.1%} of the rows are unique" if name is None else \
        f"Equivalence classes on {name}\n{unique:.1%} of the rows are unique"
    return FigureData(title,
                      f"size of the row's class (last bar: more than {max_size})",
                      "share of the rows",
                      series=(Series("rows", "rows", x, shares, kind="bars", width=0.8,
                                     colour=PALETTE["blue"]),),
                      rules=rules,
                      x_domain=(0.3, max(max_size + 1.7, 0.0 if k is None else k + 0.5)),
                      y_domain=(0.0, 1.05 * max(float(shares.max()), 0.01)), x_integer=True,
                      extra={"unique": unique, "shares": shares})


plot_class_sizes = drawn(class_sizes_data)


def _names(name: str, value: Any) -> list | None:
    if value is None or (isinstance(value, (list, tuple))
                         and all(isinstance(a, str) for a in value)):
        return None if value is None else list(value)
    raise NAMES.refuse(name, value)
