"""Why removing names does not anonymise: uniqueness and the linkage attack.

A "de-identified" table keeps attributes that are not names but, together,
single people out: ZIP code, birth date and sex identified most of the US
population in 1990 census data ([Sw00]_). Anyone holding a public roster with
names and the same attributes (a voter list) can *link* the two tables and put
names back on the records. This module lets a notebook measure that, before
any differential privacy:

* **uniqueness** of quasi-identifier combinations (:func:`class_sizes`,
  :func:`fraction_unique`) and the **curse of dimensionality**: the fraction
  of unique records as attributes are added (:func:`uniqueness_curve`, and
  :func:`expected_fraction_unique` for uniformly random data) ([A05]_, [NS08]_);
* the **linkage attack** joining a de-identified release with a roster
  (:func:`deidentify`, :func:`linkage_attack`; Sweeney's Massachusetts
  example, [Sw02]_); when several candidates share the sensitive value, the
  value is disclosed without a re-identification ([MKGV07]_'s homogeneity);
* :func:`anonymity_level`: the k for which a table is k-anonymous ([Sw02]_).

The classic repair, k-anonymity by generalisation and suppression, and the
attacks that defeat it are the next chapter, :mod:`dpteach.attacks.kanonymity`,
built on the seams defined here: the table checkers :func:`check_table`,
:func:`check_columns` and :func:`check_column`, and :func:`equivalence_classes`
(the partition of the rows by their quasi-identifiers).

Data
----
:func:`adult_with_quasi_identifiers` takes the complete rows of the UCI Adult
data (:func:`dpteach.datasets.load_adult`, 45,222 rows) and **adds synthetic
columns** ``name``, ``zip`` and ``birth_date``. They are made up from a seed and
describe nobody: Adult has neither names nor ZIP codes nor birth dates. ZIP
codes are drawn from ``n_zip_codes`` codes 02138, 02139, ... with Zipf weights
(the k-th most common code has weight ∝ 1/k); a birth date is drawn uniformly
among the days that make the person's Adult ``age`` their age on
:data:`REFERENCE_DATE` (1 July 1994, the year of the census extract). Age, sex,
race and the sensitive columns are Adult's own.

Tables are pandas DataFrames of at most :data:`MAX_ROWS` = 100,000 rows (all of
Adult fits) and at most :data:`MAX_ATTRIBUTES` = 50 quasi-identifiers.

References
----------
.. [Sw00] L. Sweeney. Simple demographics often identify people uniquely.
   Carnegie Mellon University, Data Privacy Working Paper 3, 2000 (ZIP code,
   birth date and sex single out about 87% of the 1990 US population).
.. [Sw02] L. Sweeney. k-anonymity: a model for protecting privacy.
   International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems
   10(5), 2002 (the linkage of medical records with a voter list; the
   definition of k-anonymity; generalisation and suppression).
.. [MKGV07] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam.
   ℓ-diversity: privacy beyond k-anonymity. ACM TKDD 1(1), 2007 (the
   homogeneity attack).
.. [A05] C. C. Aggarwal. On k-anonymity and the curse of dimensionality.
   VLDB 2005.
.. [NS08] A. Narayanan and V. Shmatikov. Robust de-anonymization of large
   sparse datasets. IEEE S&P 2008 (the Netflix Prize data: a handful of
   attributes single out almost every record).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import ParameterError, check_int, check_rng, describe
from ..datasets import load_adult

__all__ = [
    "REFERENCE_DATE", "MAX_ROWS", "MAX_ATTRIBUTES",
    "ADULT_QUASI_IDENTIFIERS", "SWEENEY_QUASI_IDENTIFIERS", "SENSITIVE_COLUMNS",
    "check_table", "check_columns", "check_column", "equivalence_classes",
    "adult_with_quasi_identifiers", "class_sizes", "fraction_unique", "anonymity_level",
    "uniqueness_curve", "expected_fraction_unique",
    "deidentify", "LinkageResult", "linkage_attack",
]

#: The day on which a synthetic birth date gives the person their Adult ``age``.
REFERENCE_DATE = "1994-07-01"
#: Largest table (rows) any function here or in :mod:`dpteach.attacks.kanonymity` accepts
#: (Adult has 48,842).
MAX_ROWS = 100_000
#: Largest number of quasi-identifier columns.
MAX_ATTRIBUTES = 50
#: Largest number of synthetic ZIP codes.
MAX_ZIP_CODES = 10_000
#: Adult's own quasi-identifiers.
ADULT_QUASI_IDENTIFIERS = ("age", "sex", "race")
#: Sweeney's triple ([Sw00]_): synthetic ZIP code and birth date, and sex.
SWEENEY_QUASI_IDENTIFIERS = ("zip", "birth_date", "sex")
#: Adult columns kept as the sensitive part of a release.
SENSITIVE_COLUMNS = ("education", "marital-status", "occupation", "income")

_FIRST_ZIP = 2138           # 02138, 02139, ...: made-up codes (they only look like Cambridge's)


# ------------------------------------------------------- tables and their classes
def check_table(name: str, table, *, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """Check a table argument: a pandas DataFrame of 1 to ``max_rows`` rows.

    The checker of every table of the anonymisation chapters (this module and
    :mod:`dpteach.attacks.kanonymity`), with the ``(name, value, ...)`` convention
    of :mod:`dpteach._validation`: messages name ``name`` and the value received.

    Parameters
    ----------
    name : str
        The argument's name, for messages.
    table : object
        The value to check.
    max_rows : int
        Most rows allowed, in [1, 100000] (:data:`MAX_ROWS`).

    Returns
    -------
    pandas.DataFrame
        ``table`` itself.

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame.
    ParameterError
        If it has no rows or more than ``max_rows``.
    """
    max_rows = check_int("max_rows", max_rows, minimum=1, maximum=MAX_ROWS)
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame; got {name}={describe(table)} "
                        f"of type {type(table).__name__}")
    if not 1 <= len(table) <= max_rows:
        raise ParameterError(f"{name} must have 1 to {max_rows} rows; got {name} with "
                             f"{len(table)} rows")
    return table


def check_columns(name: str, columns, table, table_name: str = "table") -> list:
    """Check a list of column names: 1 to 50 distinct columns of ``table``.

    A single name is allowed (a list of one). Each column must occur once in
    ``table`` (a DataFrame may repeat a column name; such a column cannot be
    grouped on).

    Parameters
    ----------
    name : str
        The argument's name, for messages.
    columns : str or iterable of str
        The value to check.
    table : pandas.DataFrame
        The table the columns belong to (checked with :func:`check_table`).
    table_name : str
        The table argument's name, for messages.

    Returns
    -------
    list of str
    """
    check_table(table_name, table)
    if isinstance(columns, str):
        columns = [columns]
    if isinstance(columns, (bytes, dict, set, frozenset)) or not isinstance(columns, Iterable):
        raise TypeError(f"{name} must be a column name or a list of column names; got "
                        f"{name}={describe(columns)} of type {type(columns).__name__}")
    cols = list(columns)
    if not 1 <= len(cols) <= MAX_ATTRIBUTES:
        raise ParameterError(f"{name} must name 1 to {MAX_ATTRIBUTES} columns; got "
                             f"{name}={describe(columns)}")
    for c in cols:
        if not isinstance(c, str):
            raise TypeError(f"{name} must hold column names (strings); got {name}="
                            f"{describe(columns)} with the entry {describe(c)}")
        if c not in table.columns:
            raise ParameterError(f"{name} must name columns of {table_name}; got {name}="
                                 f"{describe(columns)}, and {c!r} is not one of "
                                 f"{describe(list(table.columns))}")
    if len(set(cols)) != len(cols):
        raise ParameterError(f"{name} must not repeat a column; got {name}={describe(columns)}")
    for c in cols:
        if int((table.columns == c).sum()) > 1:
            raise ParameterError(f"{table_name} must have one column named {c!r} (it has "
                                 f"several); got {name}={describe(columns)}")
    return cols


def check_column(name: str, column, table, table_name: str = "table") -> str:
    """Check one column name of ``table`` (a string; see :func:`check_columns`)."""
    if not isinstance(column, str):
        raise TypeError(f"{name} must be a column name (a string); got {name}="
                        f"{describe(column)} of type {type(column).__name__}")
    return check_columns(name, [column], table, table_name)[0]


def _group_codes(table: pd.DataFrame, columns: list, name: str = "table") -> np.ndarray:
    """An integer per row naming its equivalence class on ``columns`` (missing values are
    a value of their own)."""
    try:
        codes = table.groupby(columns, dropna=False, sort=False, observed=True).ngroup()
    except TypeError as exc:              # unhashable cells (lists, dicts) cannot be grouped
        raise TypeError(f"{name} must hold hashable values (numbers, strings, dates) in "
                        f"{describe(columns)}; got {name} where grouping fails: {exc}") from None
    return codes.to_numpy(dtype=np.int64)


def equivalence_classes(table, quasi_identifiers) -> np.ndarray:
    """For every row, the number of its *equivalence class* on ``quasi_identifiers``.

    Rows with equal values on all the quasi-identifiers form a class ([Sw02]_);
    classes are numbered 0, 1, ... in the order of their first row. Missing values
    count as a value of their own. :func:`class_sizes` counts the rows per class;
    :mod:`dpteach.attacks.kanonymity` generalises tables until every class is large.

    Parameters
    ----------
    table : pandas.DataFrame
        1 to 100,000 rows, with hashable values in the quasi-identifiers.
    quasi_identifiers : str or list of str
        1 to 50 columns of ``table``.

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
    """
    table = check_table("table", table)
    cols = check_columns("quasi_identifiers", quasi_identifiers, table, "table")
    return _group_codes(table, cols)


# ----------------------------------------------------------------------- data
def adult_with_quasi_identifiers(n_rows: int | None = None, *, n_zip_codes: int = 25,
                                 rng=0) -> pd.DataFrame:
    """Adult's complete rows with **synthetic** names, ZIP codes and birth dates.

    The added columns are made up from the seed (see the module docstring): they
    let a notebook replay Sweeney's linkage ([Sw02]_) on real demographics
    without pretending that anyone's real ZIP code or birthday is involved.

    Parameters
    ----------
    n_rows : int, optional
        Number of rows, drawn without replacement (in their Adult order), in
        [1, 45222]; all 45,222 complete rows if omitted.
    n_zip_codes : int
        Number of synthetic ZIP codes, in [1, 10000].
    rng : None, int or numpy.random.Generator
        Seed (0 by default, so the table is reproducible).

    Returns
    -------
    pandas.DataFrame
        Columns ``name`` ("Resident 00000", ...: synthetic), ``zip`` (5-digit
        strings, synthetic), ``birth_date`` (datetime64, synthetic), ``sex``,
        ``age``, ``race`` and the sensitive columns :data:`SENSITIVE_COLUMNS`
        (Adult's).
    """
    n_zip = check_int("n_zip_codes", n_zip_codes, minimum=1, maximum=MAX_ZIP_CODES)
    gen = check_rng(rng)
    keep = ["sex", "age", "race", *SENSITIVE_COLUMNS]
    adult = load_adult().dropna().reset_index(drop=True)
    if n_rows is not None:
        n_rows = check_int("n_rows", n_rows, minimum=1, maximum=len(adult))
        rows = np.sort(gen.choice(len(adult), size=n_rows, replace=False))
        adult = adult.iloc[rows].reset_index(drop=True)
    n = len(adult)
    weights = 1.0 / np.arange(1, n_zip + 1)
    zips = np.array([f"{_FIRST_ZIP + i:05d}" for i in range(n_zip)], dtype=object)
    zip_codes = zips[gen.choice(n_zip, size=n, p=weights / weights.sum())]
    # the birthday makes the person `age` years old on REFERENCE_DATE: a day in
    # (REFERENCE_DATE − (age + 1) years, REFERENCE_DATE − age years]
    year, rest = int(REFERENCE_DATE[:4]), REFERENCE_DATE[4:]
    age = adult["age"].to_numpy(dtype=np.int64)
    ages = np.unique(age)
    anchors = {a: np.datetime64(f"{year - a}{rest}", "D") for a in np.r_[ages, ages + 1]}
    hi = np.array([anchors[a] for a in age])
    lo = np.array([anchors[a + 1] for a in age])
    span = (hi - lo).astype(np.int64)                   # 365 or 366 days
    birth = hi - np.floor(gen.random(n) * span).astype(np.int64).astype("timedelta64[D]")
    out = pd.DataFrame({
        "name": [f"Resident {i:05d}" for i in range(n)],
        "zip": zip_codes,
        "birth_date": pd.to_datetime(birth),
    })
    for col in keep:
        out[col] = adult[col].to_numpy()
    return out


# ---------------------------------------------------------------- uniqueness
def class_sizes(table, quasi_identifiers) -> np.ndarray:
    """For every row, the number of rows sharing its values on ``quasi_identifiers``.

    The rows with equal quasi-identifiers form an *equivalence class*; a row in a
    class of size 1 is **unique**, and anyone who knows those attributes of a
    person in the table finds the person's row ([Sw02]_). Missing values count as
    a value of their own.

    Parameters
    ----------
    table : pandas.DataFrame
        1 to 100,000 rows.
    quasi_identifiers : str or list of str
        1 to 50 columns of ``table``.

    Returns
    -------
    numpy.ndarray of int64, shape (len(table),)
    """
    codes = equivalence_classes(table, quasi_identifiers)
    return np.bincount(codes)[codes]


def fraction_unique(table, quasi_identifiers) -> float:
    """Fraction of the rows that are unique on ``quasi_identifiers`` (see :func:`class_sizes`)."""
    return float(np.mean(class_sizes(table, quasi_identifiers) == 1))


def anonymity_level(table, quasi_identifiers) -> int:
    """The largest k for which ``table`` is k-anonymous: its smallest class size.

    A table is *k-anonymous* on its quasi-identifiers if every combination of
    their values that occurs, occurs at least k times ([Sw02]_, the
    definition of k-anonymity): whoever knows a person's quasi-identifiers narrows them down to
    at least k rows. Missing values count as a value of their own.
    """
    return int(class_sizes(table, quasi_identifiers).min())


def uniqueness_curve(table, attributes) -> np.ndarray:
    """Fraction of unique rows on the first 1, 2, ..., d of ``attributes``.

    The curse of dimensionality for anonymisation ([A05]_, [NS08]_): each added
    attribute splits the classes further, so the curve rises towards 1 (it never
    falls: refining a partition never merges classes).

    Parameters
    ----------
    table : pandas.DataFrame
        1 to 100,000 rows.
    attributes : list of str
        1 to 50 columns, in the order they are added.

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    table = check_table("table", table)
    cols = check_columns("attributes", attributes, table, "table")
    out = np.empty(len(cols))
    for j in range(len(cols)):
        codes = _group_codes(table, cols[: j + 1])
        out[j] = np.mean(np.bincount(codes)[codes] == 1)
    return out


def expected_fraction_unique(n: int, n_cells) -> float:
    """Expected fraction of unique records among n records spread uniformly over cells.

    Each record falls in one of m equally likely cells independently (e.g. d
    attributes with v equally likely values each: m = v^d). A record is unique
    when the other n − 1 miss its cell: probability ``(1 − 1/m)^(n−1)``,
    evaluated as ``exp((n − 1)·log1p(−1/m))``. It tends to 1 as m grows past n²
    and is about ``e^{−n/m}`` in between: the idealised curse of dimensionality.

    Parameters
    ----------
    n : int
        Number of records, in [1, 10**12].
    n_cells : int
        Number of cells m ≥ 1 (any size; beyond the float range the answer is 1).

    Returns
    -------
    float
    """
    n = check_int("n", n, minimum=1, maximum=10**12)
    m = check_int("n_cells", n_cells, minimum=1)
    if n == 1:
        return 1.0
    if m == 1:
        return 0.0
    inv = 1.0 / m if m < 2**1023 else 0.0           # 1/m underflows to 0 gracefully
    return float(math.exp((n - 1) * math.log1p(-inv)))


# -------------------------------------------------------------------- linkage
def deidentify(table, keep, rng=None) -> pd.DataFrame:
    """A "de-identified" release: only the ``keep`` columns, rows shuffled, index reset.

    What a data holder does when it believes that removing names (and row order)
    anonymises: the release keeps the quasi-identifiers and the sensitive values
    ([Sw02]_).

    Parameters
    ----------
    table : pandas.DataFrame
        1 to 100,000 rows.
    keep : str or list of str
        The columns released (1 to 50).
    rng : None, int or numpy.random.Generator
        Seeds the shuffle.

    Returns
    -------
    pandas.DataFrame
    """
    table = check_table("table", table)
    cols = check_columns("keep", keep, table, "table")
    gen = check_rng(rng)
    order = gen.permutation(len(table))
    return table[cols].iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class LinkageResult:
    """Result of :func:`linkage_attack`.

    Attributes
    ----------
    matches : pandas.DataFrame
        One row per roster row (same order and index as the roster): its columns,
        ``candidates`` (release rows with the same quasi-identifiers),
        ``reidentified`` (exactly one candidate), ``learned`` (at least one
        candidate, all with the same sensitive value) and the ``sensitive``
        column: that value where ``learned``, missing elsewhere.
    n_roster : int
    n_reidentified, n_learned : int
    fraction_reidentified, fraction_learned : float
        Over the roster rows.
    """

    matches: pd.DataFrame
    n_roster: int
    n_reidentified: int
    n_learned: int
    fraction_reidentified: float
    fraction_learned: float


def linkage_attack(release, roster, quasi_identifiers, sensitive: str) -> LinkageResult:
    """Put names back on a de-identified release by joining it with a public roster.

    For every person on the roster (a name and the quasi-identifiers, e.g. a voter
    list) the attacker collects the release rows with the same quasi-identifier
    values: the *candidates*. One candidate re-identifies the person ([Sw02]_:
    the Governor of Massachusetts' medical record, found among the "anonymous"
    state-employee records by ZIP code, birth date and sex). Several
    candidates that all share the sensitive value disclose it anyway: the
    homogeneity attack ([MKGV07]_). A roster person who is not in the
    release may still match somebody else's row: the attacker cannot tell, so a
    unique candidate is a *claimed* re-identification, right only if the person
    is in the release.

    Parameters
    ----------
    release : pandas.DataFrame
        1 to 100,000 rows, with the quasi-identifiers and the ``sensitive`` column.
    roster : pandas.DataFrame
        1 to 100,000 rows, with the quasi-identifiers (and typically a name).
    quasi_identifiers : str or list of str
        1 to 50 columns present in both, with comparable types (dates with dates,
        strings with strings).
    sensitive : str
        A column of ``release``, not a quasi-identifier.

    Returns
    -------
    LinkageResult
    """
    release = check_table("release", release)
    roster = check_table("roster", roster)
    cols = check_columns("quasi_identifiers", quasi_identifiers, release, "release")
    check_columns("quasi_identifiers", cols, roster, "roster")
    sensitive = check_column("sensitive", sensitive, release, "release")
    if sensitive in cols:
        raise ParameterError(f"sensitive must not be a quasi-identifier; got sensitive="
                             f"{sensitive!r} with quasi_identifiers={describe(cols)}")
    for c in cols:
        a, b = release[c].dtype, roster[c].dtype
        kinds = {pd.api.types.is_numeric_dtype(a) and not pd.api.types.is_bool_dtype(a),
                 pd.api.types.is_numeric_dtype(b) and not pd.api.types.is_bool_dtype(b)}
        dates = {pd.api.types.is_datetime64_any_dtype(a), pd.api.types.is_datetime64_any_dtype(b)}
        if len(kinds) > 1 or len(dates) > 1:
            raise ParameterError(f"quasi_identifiers must have comparable types in release and "
                                 f"roster; got quasi_identifiers={describe(cols)} with column "
                                 f"{c!r} of dtype {a} in release and {b} in roster")
    _group_codes(release, cols, "release")          # hashable values, named errors
    _group_codes(roster, cols, "roster")
    groups = release.groupby(cols, dropna=False, sort=False, observed=True)[sensitive]
    summary = pd.DataFrame({"candidates": groups.size(),
                            "_distinct": groups.nunique(dropna=False),
                            "_value": groups.first()}).reset_index()
    left = roster.reset_index(drop=True)
    try:
        with warnings.catch_warnings():      # int and float keys are compared by value: fine
            warnings.simplefilter("ignore", UserWarning)
            merged = left[cols].merge(summary, on=cols, how="left", sort=False)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"quasi_identifiers must have comparable types in release and "
                             f"roster; got quasi_identifiers={describe(cols)} where the join "
                             f"fails: {exc}") from None
    candidates = merged["candidates"].fillna(0).to_numpy(dtype=np.int64)
    learned = (candidates > 0) & (merged["_distinct"].to_numpy() == 1)
    matches = roster.copy()
    matches["candidates"] = candidates
    matches["reidentified"] = candidates == 1
    matches["learned"] = learned
    values = merged["_value"].to_numpy(dtype=object)
    values[~learned] = None
    matches[sensitive] = pd.Series(values, index=matches.index, dtype=object)
    n = len(roster)
    n_re, n_le = int((candidates == 1).sum()), int(learned.sum())
    return LinkageResult(matches, n, n_re, n_le, n_re / n, n_le / n)
