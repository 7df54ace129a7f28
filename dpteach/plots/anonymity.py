"""Figures for anonymisation and its failures (notebook 00).

* :func:`uniqueness_curve_data` — the fraction of unique records as quasi-identifiers are
  added (the curse of dimensionality, [A05]_), one curve per data set or attribute order;
* :func:`class_sizes_data` — how the rows are spread over equivalence classes of different
  sizes, with the k of k-anonymity ([Sw02]_).

The numbers come from :mod:`dpteach.attacks.linkage` (uniqueness, class sizes) and
:mod:`dpteach.attacks.kanonymity` (the generalised, k-anonymous tables). Each is a
:class:`~dpteach.plots.figure.FigureData` drawn by the ``plot_*`` function of the same name.

References
----------
.. [Sw02] L. Sweeney. k-anonymity: a model for protecting privacy. International Journal of
   Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002.
.. [A05] C. C. Aggarwal. On k-anonymity and the curse of dimensionality. VLDB 2005.
"""

from __future__ import annotations

import textwrap

import numpy as np

from .._validation import ParameterError, check_array, check_int, describe
from ._style import CYCLE, PALETTE
from .figure import FigureData, Rule, Series, to_matplotlib

__all__ = ["MAX_CURVES", "MAX_ATTRIBUTES", "MAX_CLASS_SIZE", "uniqueness_curve_data",
           "plot_uniqueness_curve", "class_sizes_data", "plot_class_sizes"]

#: Most curves of :func:`uniqueness_curve_data`.
MAX_CURVES = 7
#: Most attributes (points per curve) of :func:`uniqueness_curve_data`.
MAX_ATTRIBUTES = 50
#: Largest class size drawn as its own bar by :func:`class_sizes_data`.
MAX_CLASS_SIZE = 200


def uniqueness_curve_data(curves, attributes=None) -> FigureData:
    """Fraction of unique records on the first 1, 2, … attributes.

    Parameters
    ----------
    curves : dict
        Label → fractions in [0, 1], entry j after j + 1 attributes (e.g.
        :func:`dpteach.attacks.linkage.uniqueness_curve`); 1 to 7 curves of 1 to 50 points.
    attributes : list of str, optional
        The names of the attributes in the order added (as long as the longest curve); the
        title lists them.

    Returns
    -------
    FigureData
        Per curve i: ``line`` ``"curve-i"`` and ``points`` ``"curve-i-points"``; rule
        ``"all-unique"`` (y = 1).
    """
    if not isinstance(curves, dict) or not 1 <= len(curves) <= MAX_CURVES:
        raise TypeError(f"curves must be a dict of 1 to {MAX_CURVES} label → fractions; got "
                        f"curves={describe(curves)} of type {type(curves).__name__}")
    series, longest = [], 0
    for i, (label, values) in enumerate(curves.items()):
        if not isinstance(label, str) or not label:
            raise TypeError(f"curves must have non-empty string labels; got the label "
                            f"{describe(label)} in curves")
        y = check_array("curves", values, ndim=1, allow_bool=False)
        if not 1 <= y.size <= MAX_ATTRIBUTES or np.any(y < 0) or np.any(y > 1):
            raise ParameterError(f"curves[{label!r}] must hold 1 to {MAX_ATTRIBUTES} fractions "
                                 f"in [0, 1]; got curves[{label!r}]={describe(values)}")
        x = np.arange(1, y.size + 1, dtype=float)
        colour = CYCLE[i % len(CYCLE)]
        series += [Series(f"curve-{i}", label, x, y, colour=colour),
                   Series(f"curve-{i}-points", "", x, y, kind="points", colour=colour)]
        longest = max(longest, y.size)
    title = "Curse of dimensionality: unique records as attributes grow"
    if attributes is not None:
        if (isinstance(attributes, (str, bytes)) or not isinstance(attributes, (list, tuple))
                or len(attributes) != longest
                or not all(isinstance(a, str) for a in attributes)):
            raise TypeError(f"attributes must be a list of {longest} names (one per point); got "
                            f"attributes={describe(attributes)}")
        names = [a.replace("_", " ").replace("-", " ")         # birth_date: "birth date",
                 for a in attributes]                          # marital-status: "marital status"
        title += "\n" + "\n".join(textwrap.wrap("in order: " + " + ".join(names), 60))
    return FigureData(title, "number of attributes", "fraction of records unique",
                      series=tuple(series),
                      rules=(Rule("all-unique", "y", 1.0, "", PALETTE["black"], "dotted"),),
                      x_domain=(0.5, longest + 0.5), y_domain=(0.0, 1.05), x_integer=True)


def plot_uniqueness_curve(curves, attributes=None, ax=None):
    """Unique records against the number of attributes (:func:`uniqueness_curve_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"curve-0"``, ….
    """
    return to_matplotlib(uniqueness_curve_data(curves, attributes), ax=ax)


def class_sizes_data(sizes, k: int | None = None, max_size: int = 20,
                     name: str | None = None) -> FigureData:
    """Share of the rows in an equivalence class of each size.

    Parameters
    ----------
    sizes : array-like of int
        The class size of every row (:func:`dpteach.attacks.linkage.class_sizes`), each ≥ 1;
        1 to 10**6 rows.
    k : int, optional
        The k of k-anonymity, drawn as a vertical rule (rows left of it violate it).
    max_size : int
        Sizes above this are pooled in the last bar, in [1, 200].
    name : str, optional
        The quasi-identifier in words, for the title (e.g. ``"ZIP code, birth date, sex"``).

    Returns
    -------
    FigureData
        ``bars`` ``"rows"`` (share of rows per class size, the last bar pooling sizes above
        ``max_size``); rule ``"k"``. ``extra``: ``"unique"`` (share of rows in classes of 1),
        ``"shares"``.
    """
    s = check_array("sizes", sizes, ndim=1, allow_bool=False)
    if not 1 <= s.size <= 10**6 or np.any(s < 1) or np.any(s != np.round(s)):
        raise ParameterError(f"sizes must be 1 to 10**6 integers ≥ 1 (a class size per row); "
                             f"got sizes={describe(sizes)}")
    max_size = check_int("max_size", max_size, minimum=1, maximum=MAX_CLASS_SIZE)
    if k is not None:
        k = check_int("k", k, minimum=1, maximum=10**6)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TypeError(f"name must be a non-empty string (the quasi-identifier in words); "
                        f"got name={describe(name)}")
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


def plot_class_sizes(sizes, k: int | None = None, max_size: int = 20,
                     name: str | None = None, ax=None):
    """Share of the rows per equivalence-class size (:func:`class_sizes_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Bars with gid ``"rows"``; the rule ``"k"``.
    """
    return to_matplotlib(class_sizes_data(sizes, k, max_size, name), ax=ax)
