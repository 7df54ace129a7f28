"""Why removing names does not anonymise: uniqueness and the linkage attack.

A "de-identified" table keeps attributes that are not names but, together,
single people out: ZIP code, birth date and sex identified most of the US
population in 1990 census data ([Sw00]_). Anyone holding a public roster with
names and the same attributes (a voter list) can *link* the two tables and put
names back on the records. This module measures that, before any differential
privacy: the **uniqueness** of quasi-identifier combinations, the **curse of
dimensionality** (more attributes, more unique records: [A05]_, [NS08]_) and the
**linkage attack** itself ([Sw02]_). The classic repair, k-anonymity, and the attacks
that defeat it are the next chapter, :mod:`dpteach.attacks.kanonymity`.

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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import POSITIVE_COUNT, RNG, integer, refuse, validate
from ..datasets import load_adult
from ._tables import (COLUMN, COLUMNS, MAX_ATTRIBUTES, MAX_ROWS, TABLE, attack_columns,
                      columns_of, group_codes)

__all__ = [
    "REFERENCE_DATE", "MAX_ROWS", "MAX_ATTRIBUTES",
    "ADULT_QUASI_IDENTIFIERS", "SWEENEY_QUASI_IDENTIFIERS", "SENSITIVE_COLUMNS",
    "equivalence_classes",
    "adult_with_quasi_identifiers", "class_sizes", "fraction_unique", "anonymity_level",
    "uniqueness_curve", "expected_fraction_unique",
    "deidentify", "LinkageResult", "linkage_attack",
]

#: The day on which a synthetic birth date gives the person their Adult ``age``.
REFERENCE_DATE = "1994-07-01"
#: Largest number of synthetic ZIP codes.
MAX_ZIP_CODES = 10_000
#: Adult's own quasi-identifiers.
ADULT_QUASI_IDENTIFIERS = ("age", "sex", "race")
#: Sweeney's triple ([Sw00]_): synthetic ZIP code and birth date, and sex.
SWEENEY_QUASI_IDENTIFIERS = ("zip", "birth_date", "sex")
#: Adult columns kept as the sensitive part of a release.
SENSITIVE_COLUMNS = ("education", "marital-status", "occupation", "income")

_FIRST_ZIP = 2138           # 02138, 02139, ...: made-up codes (they only look like Cambridge's)
_ADULT_ROWS = 45_222        # Adult's complete rows


# ------------------------------------------------------------ the classes
@validate(table=TABLE, quasi_identifiers=COLUMNS)
def equivalence_classes(table, quasi_identifiers) -> np.ndarray:
    """For every row, the number of its *equivalence class* on ``quasi_identifiers``.

    Rows with equal values on all the quasi-identifiers form a class ([Sw02]_);
    classes are numbered 0, 1, ... in the order of their first row. Missing values
    count as a value of their own. :func:`class_sizes` counts the rows per class;
    :mod:`dpteach.attacks.kanonymity` generalises tables until every class is large.
    The quasi-identifiers must hold hashable values.
    """
    return group_codes(table, columns_of(table, quasi_identifiers, "quasi_identifiers"))


# ----------------------------------------------------------------------- data
@validate(n_rows=integer(1, _ADULT_ROWS, work=True).or_none(),
          n_zip_codes=integer(1, MAX_ZIP_CODES), rng=RNG)
def adult_with_quasi_identifiers(n_rows: int | None = None, *, n_zip_codes: int = 25,
                                 rng=0) -> pd.DataFrame:
    """Adult's complete rows with **synthetic** names, ZIP codes and birth dates.

    The added columns are made up from the seed (see the module docstring): they
    let a notebook replay Sweeney's linkage ([Sw02]_) on real demographics
    without pretending that anyone's real ZIP code or birthday is involved.

    Parameters
    ----------
    n_rows : int, optional
        Number of rows, drawn without replacement (in their Adult order); all
        45,222 complete rows if omitted.
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
    adult = load_adult().dropna().reset_index(drop=True)
    if n_rows is not None:
        rows = np.sort(rng.choice(len(adult), size=n_rows, replace=False))
        adult = adult.iloc[rows].reset_index(drop=True)
    n = len(adult)
    weights = 1.0 / np.arange(1, n_zip_codes + 1)
    zips = np.array([f"{_FIRST_ZIP + i:05d}" for i in range(n_zip_codes)], dtype=object)
    zip_codes = zips[rng.choice(n_zip_codes, size=n, p=weights / weights.sum())]
    # the birthday makes the person `age` years old on REFERENCE_DATE: a day in
    # (REFERENCE_DATE − (age + 1) years, REFERENCE_DATE − age years]
    year, rest = int(REFERENCE_DATE[:4]), REFERENCE_DATE[4:]
    age = adult["age"].to_numpy(dtype=np.int64)
    ages = np.unique(age)
    anchors = {a: np.datetime64(f"{year - a}{rest}", "D") for a in np.r_[ages, ages + 1]}
    hi = np.array([anchors[a] for a in age])
    lo = np.array([anchors[a + 1] for a in age])
    span = (hi - lo).astype(np.int64)                   # 365 or 366 days
    birth = hi - np.floor(rng.random(n) * span).astype(np.int64).astype("timedelta64[D]")
    out = pd.DataFrame({
        "name": [f"Resident {i:05d}" for i in range(n)],
        "zip": zip_codes,
        "birth_date": pd.to_datetime(birth),
    })
    for col in ["sex", "age", "race", *SENSITIVE_COLUMNS]:
        out[col] = adult[col].to_numpy()
    return out


# ---------------------------------------------------------------- uniqueness
@validate(table=TABLE, quasi_identifiers=COLUMNS)
def class_sizes(table, quasi_identifiers) -> np.ndarray:
    """For every row, the number of rows sharing its values on ``quasi_identifiers``.

    The rows with equal quasi-identifiers form an *equivalence class*; a row in a
    class of size 1 is **unique**, and anyone who knows those attributes of a
    person in the table finds the person's row ([Sw02]_). Missing values count as
    a value of their own.
    """
    codes = equivalence_classes.__wrapped__(table, quasi_identifiers)
    return np.bincount(codes)[codes]


@validate(table=TABLE, quasi_identifiers=COLUMNS)
def fraction_unique(table, quasi_identifiers) -> float:
    """Fraction of the rows that are unique on ``quasi_identifiers`` (see :func:`class_sizes`)."""
    return float(np.mean(class_sizes.__wrapped__(table, quasi_identifiers) == 1))


@validate(table=TABLE, quasi_identifiers=COLUMNS)
def anonymity_level(table, quasi_identifiers) -> int:
    """The largest k for which ``table`` is k-anonymous: its smallest class size.

    A table is *k-anonymous* on its quasi-identifiers if every combination of
    their values that occurs, occurs at least k times ([Sw02]_, the
    definition of k-anonymity): whoever knows a person's quasi-identifiers narrows them down to
    at least k rows. Missing values count as a value of their own.
    """
    return int(class_sizes.__wrapped__(table, quasi_identifiers).min())


@validate(table=TABLE, attributes=COLUMNS)
def uniqueness_curve(table, attributes) -> np.ndarray:
    """Fraction of unique rows on the first 1, 2, ..., d of ``attributes``.

    The curse of dimensionality for anonymisation ([A05]_, [NS08]_): each added
    attribute splits the classes further, so the curve rises towards 1 (it never
    falls: refining a partition never merges classes). ``attributes`` are columns of
    ``table``, in the order they are added.
    """
    cols = columns_of(table, attributes, "attributes")
    out = np.empty(len(cols))
    for j in range(len(cols)):
        codes = group_codes(table, cols[: j + 1])
        out[j] = np.mean(np.bincount(codes)[codes] == 1)
    return out


@validate(n=POSITIVE_COUNT, n_cells=POSITIVE_COUNT)
def expected_fraction_unique(n: int, n_cells: int) -> float:
    """Expected fraction of unique records among n records spread uniformly over cells.

    Each record falls in one of m equally likely cells independently (e.g. d
    attributes with v equally likely values each: m = v^d). A record is unique
    when the other n − 1 miss its cell: probability ``(1 − 1/m)^(n−1)``,
    evaluated as ``exp((n − 1)·log1p(−1/m))``. It tends to 1 as m grows past n²
    and is about ``e^{−n/m}`` in between: the idealised curse of dimensionality.
    """
    if n == 1:
        return 1.0
    if n_cells == 1:
        return 0.0
    return math.exp((n - 1) * math.log1p(-1.0 / n_cells))


# -------------------------------------------------------------------- linkage
@validate(table=TABLE, keep=COLUMNS, rng=RNG)
def deidentify(table, keep, rng=None) -> pd.DataFrame:
    """A "de-identified" release: only the ``keep`` columns, rows shuffled, index reset.

    What a data holder does when it believes that removing names (and row order)
    anonymises: the release keeps the quasi-identifiers and the sensitive values
    ([Sw02]_).
    """
    cols = columns_of(table, keep, "keep")
    order = rng.permutation(len(table))
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
    n_roster, n_reidentified, n_learned : int
    fraction_reidentified, fraction_learned : float
        Over the roster rows.
    """

    matches: pd.DataFrame
    n_roster: int
    n_reidentified: int
    n_learned: int
    fraction_reidentified: float
    fraction_learned: float


@validate(release=TABLE, roster=TABLE, quasi_identifiers=COLUMNS, sensitive=COLUMN)
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
        With the quasi-identifiers and the ``sensitive`` column.
    roster : pandas.DataFrame
        With the quasi-identifiers (and typically a name).
    quasi_identifiers : str or list of str
        Columns present in both, with comparable types (dates with dates,
        strings with strings).
    sensitive : str
        A column of ``release``, not a quasi-identifier.
    """
    cols = attack_columns(release, quasi_identifiers, sensitive, "release")
    columns_of(roster, cols, "quasi_identifiers", "roster")
    for c in cols:
        if _kind(release[c].dtype) != _kind(roster[c].dtype):
            raise refuse("quasi_identifiers", cols, f"of one type in release and roster ({c!r})")
    group_codes(roster, cols, "roster")             # hashable values, named errors
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
        raise refuse("quasi_identifiers", cols, f"comparable in release, roster ({exc})") from None
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


# ------------------------------------------------------------------ helpers
def _kind(dtype) -> str:
    """"number", "date" or "other": the kinds of column a join can compare."""
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "date"
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    return "number" if numeric else "other"


# Engineering notes: docs/library/attacks.md.
