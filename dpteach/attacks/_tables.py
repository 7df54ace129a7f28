"""Table arguments of the anonymisation chapters: a pandas DataFrame and its columns.

:mod:`dpteach.attacks.linkage` and :mod:`dpteach.attacks.kanonymity` declare their table
arguments with these domains. The rule that ties the two together (the columns must be
columns of the table, each present once) is :func:`columns_of`; :func:`attack_columns` adds
the rules of an attack's sensitive column.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from .._validation import Domain, refuse

#: Largest table (rows) the anonymisation chapters accept (Adult has 48,842).
MAX_ROWS = 100_000
#: Largest number of quasi-identifier columns.
MAX_ATTRIBUTES = 50
#: a table every domain below fits: the generated tests' example
EXAMPLE_TABLE = pd.DataFrame({"zip": ["02138", "02138", "02139", "02139"],
                              "age": [34, 36, 34, 51], "sex": ["F", "F", "M", "M"],
                              "income": ["<=50K", ">50K", "<=50K", "<=50K"]})


def table(max_rows: int = MAX_ROWS) -> Domain:
    """A pandas DataFrame of 1 to ``max_rows`` rows."""

    def convert(name: str, value: Any) -> pd.DataFrame:
        if not isinstance(value, pd.DataFrame):
            raise domain.refuse(name, value)
        if not 1 <= len(value) <= max_rows:
            raise refuse(f"len({name})", len(value), f"1 to {max_rows:,} (rows)")
        return value

    domain = Domain(f"a pandas DataFrame of 1 to {max_rows:,} rows", convert,
                    example=EXAMPLE_TABLE, edges=(EXAMPLE_TABLE.iloc[:1],),
                    bad=[None, "table", [1, 2], {"zip": ["02138"]}, np.zeros((2, 2)),
                         EXAMPLE_TABLE.iloc[:0]])
    return domain


def _columns(name: str, value: Any) -> list:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, dict, set, frozenset)):
        cols = list(value)
        if 1 <= len(cols) <= MAX_ATTRIBUTES and all(isinstance(c, str) for c in cols) \
                and len(set(cols)) == len(cols):
            return cols
    raise COLUMNS.refuse(name, value)


def _column(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise COLUMN.refuse(name, value)


TABLE = table()
#: column names (a name alone is a list of one)
COLUMNS = Domain(f"a column name or a list of 1 to {MAX_ATTRIBUTES} distinct column names",
                 _columns, example=["zip", "sex"],
                 bad=[[], 3, None, ["zip", "zip"], b"zip", {"zip"}, [1],
                      [f"c{i}" for i in range(MAX_ATTRIBUTES + 1)]])
#: one column name
COLUMN = Domain("a column name (a string)", _column, example="income",
                bad=[None, 3, ["income"], b"income"])


def columns_of(table: pd.DataFrame, columns: list, name: str,
               table_name: str = "table") -> list:
    """``columns``, each checked to be a column of ``table`` that occurs in it once (a
    DataFrame may repeat a column name; such a column cannot be grouped on)."""
    for c in columns:
        if int((table.columns == c).sum()) != 1:
            raise refuse(name, columns, f"columns of {table_name} {list(table.columns)}, each once")
    return columns


def attack_columns(table: pd.DataFrame, quasi_identifiers: list, sensitive: str,
                   table_name: str = "table") -> list:
    """The quasi-identifiers of an attack, checked with its ``sensitive`` column: columns of
    ``table`` with hashable values, the sensitive column not one of them."""
    cols = columns_of(table, quasi_identifiers, "quasi_identifiers", table_name)
    columns_of(table, [sensitive], "sensitive", table_name)
    if sensitive in cols:
        raise refuse("sensitive", sensitive, f"a column not in quasi_identifiers {cols}")
    group_codes(table, cols, table_name)
    return cols


def group_codes(table: pd.DataFrame, columns: list, name: str = "table") -> np.ndarray:
    """An integer per row naming its equivalence class on ``columns`` (missing values are
    a value of their own)."""
    try:
        codes = table.groupby(columns, dropna=False, sort=False, observed=True).ngroup()
    except TypeError:                     # unhashable cells (lists, dicts) cannot be grouped
        raise refuse(f"{name}[{columns}]", "unhashable cells", "numbers, strings, dates") from None
    return codes.to_numpy(dtype=np.int64)
