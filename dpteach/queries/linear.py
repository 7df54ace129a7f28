"""Linear queries over a finite data universe: the data as a histogram, a query as a vector.

The setting of private query release ([DR14]_ Ch. 4; [HLM12]_):

* :class:`Universe` — a finite data universe, the product of a few categorical columns
  (numeric columns cut into public bins); a dataset becomes a **histogram** ``x`` with one
  count per cell (:meth:`Universe.to_histogram`). :func:`adult_universe` builds a small,
  documented universe from UCI Adult: by default age (6 bins) × sex (2) × race (5) = 60
  cells for the 48,842 people.
* :class:`LinearQueries` — k **linear (counting) queries** as the rows of a k × |U| matrix
  ``Q`` with entries in [0, 1]: query i counts ``q_i·x = Σ_u q_i(u) x(u)`` people. Adding or
  removing one person changes each count by at most 1 (sensitivity 1).
  :func:`marginal_queries` builds every cell of the w-way marginals of the columns,
  :func:`random_queries` random subsets of the universe (each cell in with probability ½:
  "arbitrary" counting queries, which overlap a lot).
* :func:`check_histogram` and :func:`as_queries` are the one check of a histogram and of a
  set of queries (used by :mod:`dpteach.queries.independent` and :mod:`dpteach.queries.mwem`);
  :func:`max_error` is the yardstick, ``max_i |q_i·x − a_i| / n``.

Neighbouring datasets differ by adding or removing one person: histograms at ℓ1 distance 1.
The number of people ``n = Σ_u x(u)`` is treated as public, as MWEM's input n ([HLM12]_),
and errors are reported as a fraction of n.

How to answer many such queries privately: :mod:`dpteach.queries.independent` (each one
independently, with noise) and :mod:`dpteach.queries.mwem` (private multiplicative weights, MWEM).

Why one file (just over 600 lines, most of it docstrings): the universe, its histograms and
the queries over it are one idea, a counting query being a vector over the universe's cells.
The first piece to move out if it grows is the Adult universe (``adult_universe`` and its
bins), into :mod:`dpteach.datasets`.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [HLM12] M. Hardt, K. Ligett and F. McSherry. A simple and practical algorithm for
   differentially private data release. NeurIPS 2012.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_int,
    check_probability,
    check_rng,
    describe,
)

__all__ = [
    "UNIVERSE_MAX",
    "QUERIES_MAX",
    "MATRIX_MAX",
    "COUNT_MAX",
    "ADULT_UNIVERSE_COLUMNS",
    "ADULT_BINS",
    "ADULT_LEVELS",
    "Universe",
    "adult_universe",
    "LinearQueries",
    "check_histogram",
    "as_queries",
    "marginal_queries",
    "random_queries",
    "max_error",
]

UNIVERSE_MAX = 10**6          #: most cells |U| of a universe (a histogram of 8 MB)
QUERIES_MAX = 10**5           #: most queries k in one LinearQueries
MATRIX_MAX = 10**7            #: most entries k·|U| of a query matrix (80 MB of float64)
COUNT_MAX = 2.0**53 - 1       #: largest number of people n = Σ x(u) (counts stay exact)

#: Adult columns with no missing value that :func:`adult_universe` can use.
ADULT_LEVELS: dict[str, tuple[str, ...]] = {
    "sex": ("Female", "Male"),
    "race": ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"),
    # in the order of years of schooling (education-num 1 … 16)
    "education": ("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th",
                  "12th", "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors",
                  "Masters", "Prof-school", "Doctorate"),
    "marital-status": ("Never-married", "Married-civ-spouse", "Married-spouse-absent",
                       "Married-AF-spouse", "Separated", "Divorced", "Widowed"),
    "relationship": ("Husband", "Wife", "Own-child", "Not-in-family", "Other-relative",
                     "Unmarried"),
    "income": ("<=50K", ">50K"),
}
#: Public bin edges of Adult's numeric columns: bin j is ``[e_j, e_{j+1})``. Fixed in
#: advance from the documented ranges (age 17-90, hours 1-99), never from the rows.
ADULT_BINS: dict[str, tuple[float, ...]] = {
    "age": (17, 25, 35, 45, 55, 65, 91),
    "hours-per-week": (1, 35, 41, 51, 100),
}
#: The default universe: age (6 bins) × sex (2) × race (5) = 60 cells.
ADULT_UNIVERSE_COLUMNS = ("age", "sex", "race")


# ------------------------------------------------------------------------ the universe
def _bin_labels(edges) -> tuple[str, ...]:
    return tuple(f"{edges[j]:g}-{edges[j + 1] - 1:g}" for j in range(len(edges) - 1))


def _names(name: str, value, what: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of {what}; got {name}="
                        f"{describe(value)} of type {type(value).__name__}")
    for v in value:
        if not isinstance(v, str):
            raise TypeError(f"{name} must hold {what} (strings); got {name}={describe(value)}")
    if len(set(value)) != len(value):
        raise ParameterError(f"{name} must not repeat an entry; got {name}={describe(value)}")
    return tuple(value)


def _numbers(values: pd.Series) -> np.ndarray:
    """The values as floats: NaN for what is not a number, ±inf beyond the float range."""
    try:
        return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    except (OverflowError, TypeError, ValueError):      # e.g. a Python int of 400 digits
        out = np.full(len(values), np.nan)
        for i, v in enumerate(values.to_numpy(dtype=object)):
            if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)):
                try:
                    out[i] = float(v)
                except OverflowError:
                    out[i] = math.inf if v > 0 else -math.inf
        return out


@dataclass(frozen=True)
class Universe:
    """A finite data universe: every combination of the levels of a few columns.

    Cell indices run over the columns in C order (the last column fastest), as
    :func:`numpy.ravel_multi_index` numbers them.

    Parameters
    ----------
    columns : tuple of str
        Column names, distinct, at least one.
    levels : tuple of tuple of str
        The levels of each column (distinct strings, at least one each). The product of
        the numbers of levels, |U|, must be in [1, 10**6].
    edges : tuple of (tuple of float or None), optional
        For a numeric column cut into bins, its increasing, finite bin edges (one more
        than its levels; bin j is ``[e_j, e_{j+1})``); None for a categorical column.
        Omitted: every column is categorical.
    """

    columns: tuple
    levels: tuple
    edges: tuple | None = None

    def __post_init__(self):
        columns = _names("columns", self.columns, "column names")
        if not columns:
            raise ParameterError("columns must name at least one column; got columns=()")
        if not isinstance(self.levels, (list, tuple)) or len(self.levels) != len(columns):
            raise ParameterError(f"levels must hold one tuple of levels per column "
                                 f"({len(columns)}); got levels={describe(self.levels)}")
        levels = tuple(_names("levels", lv, "level names") for lv in self.levels)
        empty = [c for c, lv in zip(columns, levels) if not lv]
        if empty:
            raise ParameterError(f"levels must give every column at least one level (an "
                                 f"empty universe has nothing to count); got no levels "
                                 f"for {empty}")
        size = math.prod(len(lv) for lv in levels)
        if size > UNIVERSE_MAX:
            raise ParameterError(f"levels must give a universe of at most {UNIVERSE_MAX:,} "
                                 f"cells; got {size:,} cells "
                                 f"({' × '.join(str(len(v)) for v in levels)})")
        edges = self.edges if self.edges is not None else (None,) * len(columns)
        if not isinstance(edges, (list, tuple)) or len(edges) != len(columns):
            raise ParameterError(f"edges must hold one entry (bin edges or None) per column; "
                                 f"got edges={describe(self.edges)}")
        checked = []
        for col, lv, e in zip(columns, levels, edges):
            if e is None:
                checked.append(None)
                continue
            arr = check_array("edges", e, ndim=1, min_size=2)
            if arr.size != len(lv) + 1 or np.any(np.diff(arr) <= 0):
                raise ParameterError(f"edges of {col!r} must increase and hold one more value "
                                     f"than its {len(lv)} levels; got edges={describe(e)}")
            checked.append(tuple(float(v) for v in arr))
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "edges", tuple(checked))

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of levels of each column."""
        return tuple(len(lv) for lv in self.levels)

    @property
    def size(self) -> int:
        """|U|, the number of cells."""
        return math.prod(self.shape)

    def _frame(self, flat: np.ndarray) -> pd.DataFrame:
        codes = np.unravel_index(flat, self.shape)
        return pd.DataFrame({c: pd.Categorical.from_codes(codes[i], categories=list(lv))
                             for i, (c, lv) in enumerate(zip(self.columns, self.levels))})

    def cells(self) -> pd.DataFrame:
        """Every cell as a row of level labels, in cell-index order (``size`` rows).

        The columns are pandas categoricals whose categories are the levels.
        """
        return self._frame(np.arange(self.size))

    def decode(self, indices) -> pd.DataFrame:
        """The cells with the given indices as rows of level labels (e.g. sampled records).

        Parameters
        ----------
        indices : array_like of int, shape (m,)
            Cell indices in ``[0, size)``; m ≤ 10**7.

        Returns
        -------
        pandas.DataFrame
            One categorical column per universe column (categories: its levels).
        """
        idx = check_array("indices", indices, ndim=1, min_size=0, allow_bool=False)
        if idx.size > 10**7:
            raise ParameterError(f"indices must hold at most 10**7 cells; got {idx.size:,}")
        if idx.size and (np.any(idx != np.round(idx)) or idx.min() < 0 or idx.max() >= self.size):
            raise ParameterError(f"indices must be integers in [0, {self.size}); got "
                                 f"indices={describe(indices)}")
        return self._frame(idx.astype(np.int64))

    def to_histogram(self, df: pd.DataFrame) -> np.ndarray:
        """The histogram of ``df`` over this universe: the number of rows in each cell.

        Categorical columns must hold one of the column's levels; numeric (binned) columns
        a finite number inside the edges or one of the bins' labels (so synthetic rows from
        :func:`dpteach.queries.mwem.sample_rows` count again). Anything else is an error naming
        ``df`` (this is the non-private preparation of the data, before any mechanism runs).

        Parameters
        ----------
        df : pandas.DataFrame
            With (at least) the universe's columns; at most 10**8 rows.

        Returns
        -------
        numpy.ndarray of float, shape (size,)
            Counts summing to ``len(df)``.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame; got df of type {type(df).__name__}")
        missing = [c for c in self.columns if c not in df.columns]
        if missing:
            raise ParameterError(f"df must have the universe's columns {list(self.columns)}; "
                                 f"got df without {missing}")
        if len(df) > 10**8:
            raise ParameterError(f"df must have at most 10**8 rows; got {len(df):,}")
        codes = []
        for col, lv, e in zip(self.columns, self.levels, self.edges):
            values = df[col]
            code = pd.Index(list(lv), dtype=object).get_indexer(
                pd.Index(values.to_numpy(), dtype=object)).astype(np.int64)
            bad = code < 0
            if e is not None and np.any(bad):          # numbers, cut into the bins
                v = _numbers(values)
                binned = np.searchsorted(np.asarray(e), v, side="right") - 1
                inside = np.isfinite(v) & (binned >= 0) & (binned < len(lv))
                code = np.where(bad & inside, binned, code)
                bad &= ~inside
            if np.any(bad):
                shown = sorted({str(x) for x in values[bad][:1000]})[:5]
                raise ParameterError(f"df[{col!r}] must hold "
                                     + (f"one of its levels {list(lv)}" if e is None else
                                        f"numbers in [{e[0]:g}, {e[-1]:g}) or its bin labels "
                                        f"{list(lv)}")
                                     + f"; got df with {int(bad.sum())} other value(s), "
                                       f"e.g. {shown}")
            codes.append(code)
        if not codes[0].size:
            return np.zeros(self.size)
        flat = np.ravel_multi_index(tuple(codes), self.shape)
        return np.bincount(flat, minlength=self.size).astype(float)


def adult_universe(columns=ADULT_UNIVERSE_COLUMNS, bins=None) -> Universe:
    """A small universe over columns of UCI Adult (no column with missing values).

    Columns: ``age`` and ``hours-per-week`` cut into public bins (:data:`ADULT_BINS`: age
    17-24, 25-34, 35-44, 45-54, 55-64, 65-90; hours 1-34, 35-40, 41-50, 51-99), and the
    categorical ``sex``, ``race``, ``education`` (16 levels, in years of schooling),
    ``marital-status``, ``relationship`` and ``income`` with the levels of ``adult.names``
    (:data:`ADULT_LEVELS`). The default, age × sex × race, has 6 × 2 × 5 = 60 cells; its
    histogram of :func:`dpteach.datasets.load_adult` counts all 48,842 people.

    Parameters
    ----------
    columns : sequence of str
        Distinct names from the list above (at least one).
    bins : dict, optional
        Other public bin edges for ``age`` / ``hours-per-week``: at least two increasing
        numbers within ±10**6, bin j ``[e_j, e_{j+1})``, chosen without looking at the data.

    Returns
    -------
    Universe
    """
    allowed = tuple(ADULT_BINS) + tuple(ADULT_LEVELS)
    cols = _names("columns", columns, "Adult column names")
    if not cols:
        raise ParameterError("columns must name at least one Adult column; got columns=()")
    for c in cols:
        check_choice("columns", c, allowed)
    if bins is None:
        bins = {}
    if not isinstance(bins, dict):
        raise TypeError(f"bins must be a dict (column → bin edges) or None; got "
                        f"bins={describe(bins)} of type {type(bins).__name__}")
    for key in bins:
        check_choice("bins", key, tuple(ADULT_BINS))
    levels, edges = [], []
    for c in cols:
        if c in ADULT_BINS:
            e = check_array("bins", bins.get(c, ADULT_BINS[c]), ndim=1, min_size=2)
            if np.any(np.diff(e) <= 0) or np.any(np.abs(e) > 1e6):
                raise ParameterError(f"bins[{c!r}] must be increasing numbers within ±1e6; "
                                     f"got bins={describe(bins)}")
            edges.append(tuple(float(v) for v in e))
            levels.append(_bin_labels(edges[-1]))
        else:
            edges.append(None)
            levels.append(ADULT_LEVELS[c])
    return Universe(tuple(cols), tuple(levels), tuple(edges))


# ------------------------------------------------------------------------ the queries
class LinearQueries:
    """k linear (counting) queries over a universe: the rows of a k × |U| matrix in [0, 1].

    Query i answers ``q_i·x = Σ_u Q[i, u] x(u)`` on a histogram x; with entries in [0, 1]
    each answer changes by at most 1 when one person is added or removed ([DR14]_ Ch. 4).
    A query that is not linear in the histogram (a median, a ratio, a function of the
    rows) cannot be written this way and is refused.

    Parameters
    ----------
    matrix : array_like, shape (k, |U|)
        Finite entries in [0, 1]; 1 ≤ k ≤ 10**5, k·|U| ≤ 10**7.
    names : sequence of str, optional
        One label per query (default ``"q0"``, ``"q1"``, …).

    Attributes
    ----------
    matrix : numpy.ndarray (read-only)
    k, universe_size : int
    names : tuple of str
    """

    def __init__(self, matrix, names=None):
        if callable(matrix) and not isinstance(matrix, np.ndarray):
            raise TypeError("matrix must be a k × |U| array of numbers in [0, 1]; a function is "
                            "not a linear query: write down its value on every cell of the "
                            f"universe; got matrix={describe(matrix)}")
        m = check_array("matrix", matrix, ndim=2, min_size=1)
        k, size = m.shape
        if k > QUERIES_MAX or m.size > MATRIX_MAX:
            raise ParameterError(f"matrix must have at most {QUERIES_MAX:,} rows and "
                                 f"{MATRIX_MAX:,} entries; got shape {m.shape}")
        if np.any(m < 0) or np.any(m > 1):
            raise ParameterError("matrix must hold linear counting queries with entries in "
                                 f"[0, 1] (sensitivity 1); got entries in [{m.min():g}, "
                                 f"{m.max():g}]")
        m = np.array(m, dtype=float)          # own copy
        m.setflags(write=False)
        if names is None:
            names = tuple(f"q{i}" for i in range(k))
        else:
            if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)):
                raise TypeError(f"names must be a list or tuple of str; got "
                                f"names={describe(names)}")
            names = tuple(str(v) for v in names)
            if len(names) != k:
                raise ParameterError(f"names must have one entry per query ({k}); got "
                                     f"{len(names)} names")
        self._matrix, self._names = m, names

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix

    @property
    def k(self) -> int:
        return int(self._matrix.shape[0])

    @property
    def universe_size(self) -> int:
        return int(self._matrix.shape[1])

    @property
    def names(self) -> tuple:
        return self._names

    def __len__(self) -> int:
        return self.k

    def __repr__(self) -> str:
        return f"LinearQueries(k={self.k}, universe_size={self.universe_size})"

    def answer(self, hist) -> np.ndarray:
        """The exact answers ``Q x`` (counts) on a histogram over the universe."""
        x = check_histogram(hist, self.universe_size)
        return self._matrix @ x

    def first(self, k: int) -> "LinearQueries":
        """The first k queries (1 ≤ k ≤ self.k), e.g. a prefix of a random workload."""
        k = check_int("k", k, minimum=1, maximum=self.k)
        return LinearQueries(self._matrix[:k], self._names[:k])

    def l1_sensitivity(self) -> float:
        """ℓ1 sensitivity of the answer vector: ``max_u Σ_i Q[i, u]`` (≤ k).

        One person sits in one cell u and changes query i by ``Q[i, u]``.
        """
        return float(self._matrix.sum(axis=0).max())

    def l2_sensitivity(self) -> float:
        """ℓ2 sensitivity of the answer vector: ``max_u √(Σ_i Q[i, u]²)`` (≤ √k)."""
        return float(math.sqrt((self._matrix ** 2).sum(axis=0).max()))


def check_histogram(hist, universe_size: int | None = None, name: str = "hist") -> np.ndarray:
    """A histogram of counts: 1-D, finite, ≥ 0, with n = Σ x(u) in [1, 2**53 − 1].

    The one check of every histogram argument (here and in :mod:`dpteach.queries.mwem`).

    Parameters
    ----------
    hist : array_like, shape (|U|,)
        Counts per cell (non-negative; need not be integers). |U| in [1, 10**6]; an empty
        universe is refused.
    universe_size : int, optional
        The |U| the histogram must have (e.g. the queries' number of columns), in
        [1, 10**6].
    name : str
        The argument's name in error messages.
    """
    if universe_size is not None:
        universe_size = check_int("universe_size", universe_size, minimum=1,
                                  maximum=UNIVERSE_MAX)
    x = check_array(name, hist, ndim=1, min_size=1)
    if x.size > UNIVERSE_MAX:
        raise ParameterError(f"{name} must have at most {UNIVERSE_MAX:,} cells; got {x.size:,}")
    if np.any(x < 0):
        raise ParameterError(f"{name} must hold counts >= 0; got {name}={describe(hist)}")
    n = math.fsum(x) if np.all(x < 1e300) else math.inf
    if not 1 <= n <= COUNT_MAX:
        raise ParameterError(f"{name} must count between 1 and 2**53 − 1 people in all "
                             f"(n = Σ counts); got n={n:g}")
    if universe_size is not None and x.size != universe_size:
        raise ParameterError(f"{name} must have one count per cell of the queries' universe "
                             f"({universe_size}); got {x.size} cells")
    return x


def as_queries(queries, universe_size: int | None = None) -> LinearQueries:
    """``queries`` as :class:`LinearQueries` over a universe of ``universe_size`` cells.

    Accepts a :class:`LinearQueries` or a k × |U| matrix. Anything that is not linear over
    that universe — a function, a matrix with another number of columns, entries outside
    [0, 1] — is refused naming ``queries``. ``universe_size``, if given, is in [1, 10**6].
    """
    if universe_size is not None:
        universe_size = check_int("universe_size", universe_size, minimum=1,
                                  maximum=UNIVERSE_MAX)
    if not isinstance(queries, LinearQueries):
        if callable(queries) and not isinstance(queries, np.ndarray):
            raise TypeError("queries must be LinearQueries or a k × |U| matrix in [0, 1]; a "
                            "function is not a linear query over the universe (write down its "
                            f"value on every cell); got queries={describe(queries)}")
        try:
            queries = LinearQueries(queries)
        except ParameterError as exc:
            raise ParameterError(str(exc).replace("matrix", "queries")) from None
        except TypeError as exc:
            raise TypeError(str(exc).replace("matrix", "queries")) from None
    if universe_size is not None and queries.universe_size != universe_size:
        raise ParameterError(f"queries must be linear over the histogram's universe: one "
                             f"column per cell ({universe_size}); got {queries.universe_size} "
                             f"columns")
    return queries


def marginal_queries(universe: Universe, ways: int = 2) -> LinearQueries:
    """Every cell of every ``ways``-way marginal of the universe's columns.

    A ``ways``-way marginal of columns (c₁, …, c_w) counts the people in each combination
    of their levels; its cells are disjoint, so one person changes exactly one cell of
    each marginal (the ℓ1 sensitivity of all of them is the number of marginals, not k).
    Names read like ``"sex=Female & race=Black"``.

    Parameters
    ----------
    universe : Universe
    ways : int
        In [1, number of columns].

    Returns
    -------
    LinearQueries
        ``Σ_{column sets} Π levels`` queries.
    """
    if not isinstance(universe, Universe):
        raise TypeError(f"universe must be a Universe; got universe of type "
                        f"{type(universe).__name__}")
    ways = check_int("ways", ways, minimum=1, maximum=len(universe.columns))
    codes = np.indices(universe.shape).reshape(len(universe.shape), -1)
    combos = list(itertools.combinations(range(len(universe.columns)), ways))
    k = sum(math.prod(universe.shape[c] for c in combo) for combo in combos)
    if k > QUERIES_MAX or k * universe.size > MATRIX_MAX:
        raise ParameterError(f"ways={ways} gives {k:,} queries over {universe.size:,} cells, "
                             f"more than {QUERIES_MAX:,} queries or {MATRIX_MAX:,} entries")
    rows, names = [], []
    for combo in combos:
        for levels in itertools.product(*(range(universe.shape[c]) for c in combo)):
            mask = np.ones(universe.size, dtype=bool)
            for c, lv in zip(combo, levels):
                mask &= codes[c] == lv
            rows.append(mask)
            names.append(" & ".join(f"{universe.columns[c]}={universe.levels[c][lv]}"
                                    for c, lv in zip(combo, levels)))
    return LinearQueries(np.array(rows, dtype=float), names)


def random_queries(universe, k: int, *, density: float = 0.5, rng=None) -> LinearQueries:
    """k random counting queries: each cell belongs to each query with probability ``density``.

    These are the "arbitrary" counting queries of the lower bounds ([DR14]_ Ch. 4): they
    overlap, so one person is counted by about ``density·k`` of them and answering each
    independently needs noise growing with k. The first j rows of a draw with a seed are
    the draw of j queries with that seed (a workload grows by appending).

    Parameters
    ----------
    universe : Universe or int
        The universe, or its number of cells |U| (≥ 1).
    k : int
        In [1, 10**5], with k·|U| ≤ 10**7.
    density : float
        Probability in [0, 1].
    rng : None, int or numpy.random.Generator
    """
    if isinstance(universe, Universe):
        size = universe.size
    elif isinstance(universe, numbers.Integral) and not isinstance(universe, (bool, np.bool_)):
        size = check_int("universe", universe, minimum=1, maximum=UNIVERSE_MAX)
    else:
        raise TypeError(f"universe must be a Universe or a number of cells; got "
                        f"universe={describe(universe)} of type {type(universe).__name__}")
    k = check_int("k", k, minimum=1, maximum=min(QUERIES_MAX, MATRIX_MAX // size))
    density = check_probability("density", density)
    gen = check_rng(rng)
    return LinearQueries((gen.random((k, size)) < density).astype(float))


# ----------------------------------------------------------------- answering, errors
def max_error(queries, hist, *, answers=None, synthetic=None) -> float:
    """The largest error of estimated answers, as a fraction of n: ``max_i |q_i·x − a_i| / n``.

    Give exactly one of ``answers`` (one estimate per query, in counts) or ``synthetic``
    (a histogram over the universe, e.g. MWEM's output, whose answers are ``Q y``).

    Parameters
    ----------
    queries : LinearQueries or array_like (k, |U|)
    hist : array_like, shape (|U|,)
        The true histogram (n people).
    answers : array_like, shape (k,), optional
    synthetic : array_like, shape (|U|,), optional
        Non-negative weights (any total; its answers are taken as they are).

    Returns
    -------
    float
    """
    x = check_histogram(hist)
    q = as_queries(queries, x.size)
    if (answers is None) == (synthetic is None):
        raise TypeError("max_error needs exactly one of answers= or synthetic=; got "
                        + ("neither" if answers is None else "both"))
    if answers is not None:
        est = check_array("answers", answers, ndim=1)
        if est.size != q.k:
            raise ParameterError(f"answers must hold one estimate per query ({q.k}); got "
                                 f"{est.size}")
    else:
        y = check_array("synthetic", synthetic, ndim=1)
        if y.size != x.size or np.any(y < 0):
            raise ParameterError(f"synthetic must be a histogram of {x.size} weights >= 0; got "
                                 f"synthetic={describe(synthetic)}")
        est = q.matrix @ y
    n = float(x.sum())
    with np.errstate(over="ignore"):
        return float(np.max(np.abs(q.matrix @ x - est)) / n)
