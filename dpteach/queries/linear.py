"""Linear queries over a finite data universe: the data as a histogram, a query as a vector.

The setting of private query release ([DR14]_ Ch. 4; [HLM12]_):

* :class:`Universe` — a finite data universe, the product of a few categorical columns
  (numeric columns cut into public bins); a dataset becomes a **histogram** ``x`` with one
  count per cell (:meth:`Universe.to_histogram`). :func:`adult_universe` builds a small,
  documented universe from UCI Adult: by default age (6 bins) × sex (2) × race (5) = 60
  cells for the 48,842 people.
* :class:`LinearQueries` — k **linear (counting) queries** as the rows of a k × |U| matrix
  ``Q`` with entries in [0, 1]: query i counts ``q_i·x = Σ_u q_i(u) x(u)`` people.
  :func:`marginal_queries` builds every cell of the w-way marginals of the columns,
  :func:`random_queries` random subsets of the universe (each cell in with probability ½:
  "arbitrary" counting queries, which overlap a lot).
* :func:`max_error` is the yardstick, ``max_i |q_i·x − a_i| / n``.

Neighbouring datasets: adding or removing one person changes the histogram by 1 in one
cell (ℓ1 distance 1) and each count by at most 1 (sensitivity 1); replacing one person
moves one unit between two cells (ℓ1 distance 2), and each count still changes by at most
1. :mod:`dpteach.queries.independent` assumes the first, :mod:`dpteach.queries.mwem` the
second (it uses the number of people n, which must be public). Errors are reported as a
fraction of n.

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
from typing import Any, cast

import numpy as np
import pandas as pd

from .._validation import (PROBABILITY, RNG, Domain, array, instance_of, integer, one_of, refuse,
                           validate)

__all__ = [
    "UNIVERSE_MAX", "QUERIES_MAX", "MATRIX_MAX", "COUNT_MAX",
    "ADULT_UNIVERSE_COLUMNS", "ADULT_BINS", "ADULT_LEVELS", "HISTOGRAM", "QUERIES", "UNIVERSE",
    "Universe", "adult_universe", "LinearQueries", "marginal_queries", "random_queries",
    "conjunction_queries", "max_error",
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


# ----------------------------------------------------------------------- the domains
# (their converters are at the end of the module, with the other helpers)
#: the columns of a universe
NAMES: Domain = Domain("a non-empty list or tuple of distinct strings",
                       lambda name, value: _distinct_names(name, value, NAMES),
                       example=("sex",), edges=(("sex",),),
                       bad=["sex", None, [], ["a", "a"], [1], 3])
#: columns of UCI Adult
ADULT_COLUMNS: Domain = Domain(
    "a non-empty list or tuple of distinct names from " + ", ".join((*ADULT_BINS, *ADULT_LEVELS)),
    lambda name, value: _distinct_names(name, value, ADULT_COLUMNS,
                                        among=(*ADULT_BINS, *ADULT_LEVELS)),
    example=("age",), edges=(("age",),), bad=["age", None, [], ["age", "age"], ["salary"], 3])
#: the levels of each column: a universe of at most 10⁶ cells
LEVELS = Domain("a non-empty list or tuple of level names (a non-empty list or tuple of "
                "distinct strings) per column, at most 1,000,000 cells in all",
                lambda name, value: _levels(name, value), example=(("x", "y"),),
                edges=((("x",),),), bad=[None, (), ("x", "y"), (("x", "x"),), ((),), ((1,),)])
#: bin edges: None (every column categorical) or one entry per column, None or edges
EDGES = Domain("None, or one entry per column: None (categorical) or increasing bin edges "
               "within ±1e6", lambda name, value: _edges(name, value), example=None,
               edges=(None, (None,)),
               bad=["abc", 3, ([2.0, 1.0],), ([0.0],), ([0.0, math.nan],)])
#: other public bin edges for Adult's numeric columns
BINS = Domain("None or a dict from 'age' / 'hours-per-week' to increasing bin edges within "
              "±1e6", lambda name, value: _bins(name, value), example=None,
              edges=(None, {"age": [0, 50, 100]}),
              bad=["abc", {"sex": [0, 1]}, {"age": [5, 1]}, {"age": [0]}, [0, 1]])
DATAFRAME = Domain("a pandas DataFrame of at most 10**8 rows",
                   lambda name, value: _frame(name, value), example=pd.DataFrame({"x": ["x"]}),
                   bad=[None, "abc", [1, 2], {"x": [1]}])
#: a query matrix: k ≤ 10⁵ rows (queries) of entries in [0, 1] (sensitivity 1)
MATRIX = Domain("a k × |U| array of numbers in [0, 1] (k ≤ 100,000 queries, k·|U| ≤ 10**7)",
                lambda name, value: _matrix(name, value), example=[[1.0, 0.0], [0.5, 0.5]],
                edges=([[0.0]], [[1.0]]),
                bad=["abc", None, [1.0, 0.0], [[2.0]], [[-0.5]], [[math.nan]], [[True]],
                     np.ones((QUERIES_MAX + 1, 1)), len])
QUERY_NAMES = Domain("None or a list or tuple of strings, one per query",
                     lambda name, value: _query_names(name, value), example=("q0", "q1"),
                     edges=(None,), bad=["q0", 3, [1, 2]])
#: a histogram over a universe: counts ≥ 0 of n people in all (n ≥ 1, counts exact)
HISTOGRAM = Domain("a 1-D array of counts ≥ 0 (at most 1,000,000 cells) adding up to n "
                   "in [1, 2**53 − 1]", lambda name, value: _histogram(name, value),
                   example=[3.0, 1.0, 0.0, 4.0], edges=([1.0], [COUNT_MAX]),
                   bad=["abc", None, [], [0.0, 0.0], [-1.0, 2.0], [math.nan], [math.inf],
                        [[1.0]], [True], [COUNT_MAX, 1.0]])
_BIN_EDGES = array(ndim=1, min_size=2, low=-1e6, high=1e6,
                   text="increasing bin edges: a 1-D array of at least 2 numbers within ±1e6")
_MATRIX = array(ndim=2, low=0.0, high=1.0, max_size=MATRIX_MAX, max_rows=QUERIES_MAX)
_COUNTS = array(ndim=1, low=0.0, high=COUNT_MAX, max_size=UNIVERSE_MAX)
_CELLS = integer(1, UNIVERSE_MAX)


# ------------------------------------------------------------------------ the universe
@validate(columns=NAMES, levels=LEVELS, edges=EDGES)
@dataclass(frozen=True)
class Universe:
    """A finite data universe: every combination of the levels of a few columns.

    Cell indices run over the columns in C order (the last column fastest), as
    :func:`numpy.ravel_multi_index` numbers them.

    Parameters
    ----------
    columns : tuple of str
        Column names.
    levels : tuple of tuple of str
        The levels of each column. The product of the numbers of levels is |U|.
    edges : tuple of (tuple of float or None), optional
        For a numeric column cut into bins, its increasing bin edges (one more than its
        levels; bin j is ``[e_j, e_{j+1})``); None for a categorical column. Omitted:
        every column is categorical.
    """

    columns: tuple
    levels: tuple
    edges: tuple | None = None

    def __post_init__(self):
        if len(self.levels) != len(self.columns):
            raise refuse("levels", self.levels, f"one tuple per column ({len(self.columns)})")
        edges = self.edges if self.edges is not None else (None,) * len(self.columns)
        if len(edges) != len(self.columns) or any(
                e is not None and len(e) != len(lv) + 1 for e, lv in zip(edges, self.levels)):
            raise refuse("edges", edges, "per column None or one edge more than its levels")
        object.__setattr__(self, "edges", edges)

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of levels of each column."""
        return tuple(len(lv) for lv in self.levels)

    @property
    def size(self) -> int:
        """|U|, the number of cells."""
        return math.prod(self.shape)

    def cells(self) -> pd.DataFrame:
        """Every cell as a row of level labels, in cell-index order (``size`` rows).

        The columns are pandas categoricals whose categories are the levels.
        """
        return self._frame(np.arange(self.size))

    @validate(indices=array(ndim=1, min_size=0, max_size=10**7, low=0, high=UNIVERSE_MAX - 1,
                            integers=True, example=[0, 1]))
    def decode(self, indices) -> pd.DataFrame:
        """The cells with the given indices in ``[0, size)`` as rows of level labels (e.g.
        sampled records): one categorical column per universe column."""
        if indices.size and indices.max() >= self.size:
            raise refuse("indices", indices, f"integers in [0, {self.size})")
        return self._frame(indices.astype(np.int64))

    @validate(df=DATAFRAME)
    def to_histogram(self, df: pd.DataFrame) -> np.ndarray:
        """The histogram of ``df`` over this universe: the number of rows in each cell.

        Categorical columns must hold one of the column's levels; numeric (binned) columns
        a finite number inside the edges or one of the bins' labels (so synthetic rows from
        :func:`dpteach.queries.mwem.sample_rows` count again). Anything else is an error naming
        ``df`` (this is the non-private preparation of the data, before any mechanism runs).
        ``df`` must hold each of the universe's columns once; the counts sum to ``len(df)``.
        """
        missing = [c for c in self.columns if c not in df.columns]
        twice = [c for c in self.columns if np.sum(df.columns == c) > 1]
        if missing or twice:
            raise refuse("df", df, f"a frame with each of the columns {list(self.columns)} once "
                               f"({missing} missing, {twice} twice)")
        codes = []
        for col, lv, e in zip(self.columns, self.levels, cast(tuple, self.edges)):
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
                numbers = f" or numbers in [{e[0]:g}, {e[-1]:g})" if e else ""
                raise refuse(f"df[{col!r}]", shown, f"in the levels {list(lv)}{numbers}")
            codes.append(code)
        if not codes[0].size:
            return np.zeros(self.size)
        flat = np.ravel_multi_index(tuple(codes), self.shape)
        return np.bincount(flat, minlength=self.size).astype(float)

    def _frame(self, flat: np.ndarray) -> pd.DataFrame:
        codes = np.unravel_index(flat, self.shape)
        return pd.DataFrame({c: pd.Categorical.from_codes(codes[i], categories=list(lv))
                             for i, (c, lv) in enumerate(zip(self.columns, self.levels))})


#: a universe (the argument of marginal_queries and sample_rows)
UNIVERSE = instance_of(Universe, "a Universe")
#: a universe, or just its number of cells
UNIVERSE_OR_SIZE = one_of(UNIVERSE, _CELLS,
                          text=f"a Universe or its number of cells |U|, {_CELLS.text}")


@validate(columns=ADULT_COLUMNS, bins=BINS)
def adult_universe(columns=ADULT_UNIVERSE_COLUMNS, bins=None) -> Universe:
    """A small universe over columns of UCI Adult (no column with missing values).

    Columns: ``age`` and ``hours-per-week`` cut into public bins (:data:`ADULT_BINS`: age
    17-24, 25-34, 35-44, 45-54, 55-64, 65-90; hours 1-34, 35-40, 41-50, 51-99), and the
    categorical ``sex``, ``race``, ``education`` (16 levels, in years of schooling),
    ``marital-status``, ``relationship`` and ``income`` with the levels of ``adult.names``
    (:data:`ADULT_LEVELS`). The default, age × sex × race, has 6 × 2 × 5 = 60 cells; its
    histogram of :func:`dpteach.datasets.load_adult` counts all 48,842 people. ``bins``
    replaces the public bin edges of ``age`` / ``hours-per-week`` (bin j ``[e_j, e_{j+1})``),
    chosen without looking at the data.
    """
    edges = [bins.get(c, ADULT_BINS[c]) if c in ADULT_BINS else None for c in columns]
    levels = [ADULT_LEVELS[c] if e is None else _bin_labels(e) for c, e in zip(columns, edges)]
    return Universe(columns, tuple(levels), tuple(edges))


# ------------------------------------------------------------------------ the queries
@validate(matrix=MATRIX, names=QUERY_NAMES)
class LinearQueries:
    """k linear (counting) queries over a universe: the rows of a k × |U| matrix in [0, 1].

    Query i answers ``q_i·x = Σ_u Q[i, u] x(u)`` on a histogram x; with entries in [0, 1]
    each answer changes by at most 1 when one person is added, removed or replaced
    ([DR14]_ Ch. 4). A query that is not linear in the histogram (a median, a ratio, a
    function of the rows) cannot be written this way and is refused. ``names`` labels the
    queries (default ``"q0"``, ``"q1"``, …); ``matrix`` is a read-only copy.
    """

    def __init__(self, matrix, names=None):
        k = matrix.shape[0]
        if names is not None and len(names) != k:
            raise refuse("names", names, f"one name per query ({k})")
        m = np.array(matrix, dtype=float)          # own copy
        m.setflags(write=False)
        self._matrix = m
        self._names = tuple(f"q{i}" for i in range(k)) if names is None else names

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

    @validate(hist=HISTOGRAM)
    def answer(self, hist) -> np.ndarray:
        """The exact answers ``Q x`` (counts) on a histogram over the universe."""
        if self.universe_size != hist.size:
            raise refuse("queries", self, f"one column per cell of hist ({hist.size})")
        return self._matrix @ hist

    @validate(k=integer(1, QUERIES_MAX))
    def first(self, k: int) -> LinearQueries:
        """The first k queries (k ≤ self.k), e.g. a prefix of a random workload."""
        if k > self.k:
            raise refuse("k", k, f"at most the number of queries {self.k}")
        return LinearQueries(self._matrix[:k], self._names[:k])

    def l1_sensitivity(self) -> float:
        """ℓ1 sensitivity of the answer vector when one person is added or removed:
        ``max_u Σ_i Q[i, u]`` (≤ k). One person sits in one cell u and changes query i by
        ``Q[i, u]``."""
        return float(self._matrix.sum(axis=0).max())

    def l2_sensitivity(self) -> float:
        """ℓ2 sensitivity of the answer vector when one person is added or removed:
        ``max_u √(Σ_i Q[i, u]²)`` (≤ √k)."""
        return float(math.sqrt((self._matrix ** 2).sum(axis=0).max()))


def _queries(name: str, value) -> LinearQueries:
    return value if isinstance(value, LinearQueries) else LinearQueries(MATRIX(name, value))


#: queries: LinearQueries, or their matrix
QUERIES = Domain("LinearQueries or " + MATRIX.text, _queries,
                 example=[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 0.0]],
                 edges=MATRIX.edges, bad=MATRIX.bad)


@validate(universe=UNIVERSE, ways=integer(1, 64))
def marginal_queries(universe: Universe, ways: int = 2) -> LinearQueries:
    """Every cell of every ``ways``-way marginal of the universe's columns.

    A ``ways``-way marginal of columns (c₁, …, c_w) counts the people in each combination
    of their levels; its cells are disjoint, so one person changes exactly one cell of
    each marginal (the ℓ1 sensitivity of all of them is the number of marginals, not k).
    Names read like ``"sex=Female & race=Black"``; there are ``Σ_{column sets} Π levels``
    queries.
    """
    codes = np.indices(universe.shape).reshape(len(universe.shape), -1)
    combos = list(itertools.combinations(range(len(universe.columns)), ways))
    k = sum(math.prod(universe.shape[c] for c in combo) for combo in combos)
    if not 0 < k <= min(QUERIES_MAX, MATRIX_MAX // universe.size):
        raise refuse("ways", ways, f"at most {len(universe.columns)} (the columns), making at "
                     f"most {QUERIES_MAX:,} queries and 10**7 entries ({k:,} queries here)")
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


@validate(universe=UNIVERSE_OR_SIZE, k=integer(1, QUERIES_MAX, work=True), density=PROBABILITY,
          rng=RNG)
def random_queries(universe, k: int, *, density: float = 0.5, rng=None) -> LinearQueries:
    """k random counting queries: each cell belongs to each query with probability ``density``.

    These are the "arbitrary" counting queries of the lower bounds ([DR14]_ Ch. 4): they
    overlap, so one person is counted by about ``density·k`` of them and answering each
    independently needs noise growing with k. The first j rows of a draw with a seed are
    the draw of j queries with that seed (a workload grows by appending).
    ``k·|U|`` is at most 10**7.
    """
    size = universe.size if isinstance(universe, Universe) else universe
    _at_most_entries(k, size)
    return LinearQueries((rng.random((k, size)) < density).astype(float))


@validate(universe=UNIVERSE, k=integer(1, QUERIES_MAX, work=True), keep=PROBABILITY, rng=RNG)
def conjunction_queries(universe: Universe, k: int, *, keep: float = 0.9,
                        rng=None) -> LinearQueries:
    """k random conjunctions: "column₁ in S₁ and column₂ in S₂ and …".

    Each level of each column belongs to S_c with probability ``keep`` (at least one level
    does). These are the questions an analyst asks ("people aged 25-44, not married, with
    at most 12 years of schooling"); with ``keep`` near 1 each counts many of the same
    people, so they overlap like :func:`random_queries`, but follow the data's columns.
    ``k·|U|`` is at most 10**7.
    """
    _at_most_entries(k, universe.size)
    codes = np.indices(universe.shape).reshape(len(universe.shape), -1)
    rows = np.ones((k, universe.size), dtype=bool)
    for row in rows:
        for c, levels in enumerate(universe.shape):
            chosen = rng.random(levels) < keep
            chosen[rng.integers(levels)] |= not chosen.any()
            row &= chosen[codes[c]]
    return LinearQueries(rows.astype(float))


# ----------------------------------------------------------------- answering, errors
@validate(queries=QUERIES, hist=HISTOGRAM,
          answers=array(ndim=1, low=-1e18, high=1e18).or_none(),
          synthetic=array(ndim=1, low=0.0, high=1e18).or_none())
def max_error(queries, hist, *, answers=None, synthetic=None) -> float:
    """The largest error of estimated answers, as a fraction of n: ``max_i |q_i·x − a_i| / n``.

    ``hist`` is the true histogram of n people. Give exactly one of ``answers`` (one
    estimate per query, in counts) or ``synthetic`` (weights ≥ 0 over the universe, e.g.
    MWEM's output, whose answers ``Q y`` are taken as they are, whatever their total).
    """
    true = queries.answer(hist)
    if (answers is None) == (synthetic is None):
        raise refuse("answers", answers, "given exactly when synthetic is not (exactly one)")
    if answers is not None and answers.size != queries.k:
        raise refuse("answers", answers, f"one estimate per query ({queries.k})")
    if synthetic is not None and synthetic.size != hist.size:
        raise refuse("synthetic", synthetic, f"one weight per cell ({hist.size})")
    est = answers if answers is not None else queries.matrix @ synthetic
    return float(np.max(np.abs(true - est)) / float(hist.sum()))


# ------------------------------------------------------------------------ helpers
def _at_most_entries(k: int, size: int) -> None:
    """The rule tying k to the universe: a query matrix of at most 10**7 entries."""
    if k * size > MATRIX_MAX:
        raise refuse("k", k, f"at most {MATRIX_MAX // size:,} (10**7 entries / |U| = {size:,})")


# the domains' converters: each returns the value to use or raises ParameterError naming it
def _distinct_names(name: str, value, domain: Domain, among: tuple[str, ...] | None = None):
    if (isinstance(value, (list, tuple)) and value and len(set(value)) == len(value)
            and all(isinstance(v, str) and (among is None or v in among) for v in value)):
        return tuple(value)
    raise domain.refuse(name, value)


def _levels(name: str, value):
    if isinstance(value, (list, tuple)) and value:
        levels = tuple(NAMES(name, lv) for lv in value)
        if math.prod(len(lv) for lv in levels) <= UNIVERSE_MAX:
            return levels
    raise LEVELS.refuse(name, value)


def _edges(name: str, value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(None if e is None else _increasing(name, e) for e in value)
    raise EDGES.refuse(name, value)


def _bins(name: str, value):
    if value is None:
        return {}
    if isinstance(value, dict) and all(k in ADULT_BINS for k in value):
        return {k: _increasing(name, e) for k, e in value.items()}
    raise BINS.refuse(name, value)


def _increasing(name: str, value) -> tuple[float, ...]:
    """Bin edges: at least two numbers within ±1e6, strictly increasing."""
    edges = _BIN_EDGES(name, value)
    if np.all(np.diff(edges) > 0):
        return tuple(float(v) for v in edges)
    raise _BIN_EDGES.refuse(name, value)


def _frame(name: str, value):
    if isinstance(value, pd.DataFrame) and len(value) <= 10**8:
        return value
    raise DATAFRAME.refuse(name, value)


def _matrix(name: str, value):
    if callable(value) and not isinstance(value, np.ndarray):
        raise refuse(name, value, f"{MATRIX.text} (a function is not: give its value per cell)")
    return _MATRIX(name, value)


def _query_names(name: str, value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise QUERY_NAMES.refuse(name, value)


def _histogram(name: str, value) -> np.ndarray:
    x = _COUNTS(name, value)
    n = math.fsum(x)
    if 1 <= n <= COUNT_MAX:
        return x
    raise refuse(name, value, f"{HISTOGRAM.text} (n = Σ counts = {n:g})")


def _bin_labels(edges) -> tuple[str, ...]:
    return tuple(f"{edges[j]:g}-{edges[j + 1] - 1:g}" for j in range(len(edges) - 1))


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
                    out[i] = math.inf if cast(Any, v) > 0 else -math.inf
        return out



UNIVERSE.example = Universe(("sex",), (("Female", "Male"),))   # (built with the converters above)


# Engineering notes. The universe, its histograms and the queries over it are one idea (a
# counting query is a vector over the universe's cells); the first piece to move out if
# this module grows is the Adult universe (adult_universe and its bins), into
# dpteach.datasets. Bounds: |U| ≤ 10⁶ cells (an 8 MB histogram), k ≤ 10⁵ queries and
# k·|U| ≤ 10⁷ matrix entries (80 MB); counts below 2⁵³, where doubles hold every integer.
# Tests: tests/queries/test_many_queries.py and tests/test_domains.py.
