"""k-anonymity by generalisation, and the attacks that defeat it.

:mod:`dpteach.attacks.linkage` shows that quasi-identifiers single people out
and that a roster puts names back on a "de-identified" release. The classic
repair is **k-anonymity** ([Sw02]_): generalise the quasi-identifiers (ZIP code
02139 → 0213*, a birth date → its year) and suppress what is still rare, until
every combination that occurs, occurs at least k times. This module builds
such tables, by hand or with LeFevre, DeWitt and Ramakrishnan's **Mondrian**
algorithm ([LDR06]_), and breaks them with the **homogeneity** and
**background-knowledge** attacks that motivate ℓ-diversity ([MKGV07]_).

References
----------
.. [Sw02] L. Sweeney. k-anonymity: a model for protecting privacy.
   International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems
   10(5), 2002 (the definition of k-anonymity; generalisation and suppression).
.. [LDR06] K. LeFevre, D. J. DeWitt and R. Ramakrishnan. Mondrian
   multidimensional k-anonymity. ICDE 2006 (strict multidimensional
   partitioning, the greedy median split; the discernibility and normalised
   average class size metrics).
.. [MKGV07] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam.
   ℓ-diversity: privacy beyond k-anonymity. ACM TKDD 1(1), 2007 (the
   homogeneity and background-knowledge attacks; ℓ-diversity).
.. [XWP+06] J. Xu, W. Wang, J. Pei, X. Wang, B. Shi and A. W.-C. Fu.
   Utility-based anonymization using local recoding. KDD 2006 (the normalised
   certainty penalty, here for ordered attributes).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import Domain, array, choice, integer, refuse, validate
from ._tables import (COLUMN, COLUMNS, MAX_ATTRIBUTES, MAX_ROWS, TABLE, attack_columns,
                      columns_of, table)
from .linkage import class_sizes, equivalence_classes

__all__ = [
    "MAX_MONDRIAN_ROWS",
    "coarsen", "suppress_small_classes",
    "KAnonymousTable", "mondrian_anonymize",
    "l_diversity", "HomogeneityResult", "homogeneity_attack",
    "BackgroundKnowledgeResult", "background_knowledge_attack",
]

#: Largest table :func:`mondrian_anonymize` accepts.
MAX_MONDRIAN_ROWS = 50_000


#: generalisation rules: column name → rule (see :func:`coarsen`)
RULES = Domain(f"a dict of 1 to {MAX_ATTRIBUTES} column names → rules",
               lambda name, value: _rules(name, value),
               example={"age": 10}, bad=[None, [1], "zip", {}, {1: 2}])
#: the class size k (at most the number of rows: checked against the table)
K = integer(1, MAX_ROWS)
#: a row position (at most the number of rows − 1: checked against the table)
TARGET = integer(0, MAX_ROWS - 1)
#: sensitive values an attacker rules out
RULED_OUT = Domain("a list of at most 10,000 sensitive values",
                   lambda name, value: _ruled_out(name, value), example=[],
                   bad=["heart", 3, None, b"x"])
#: the values of a numeric column that is coarsened (multiples of the width stay exact)
COARSENABLE = array(low=-2.0**52, high=2.0**52)
#: the values of a numeric quasi-identifier of Mondrian
MONDRIAN_NUMBERS = array(low=-1e15, high=1e15)


# ------------------------------------------------------- generalisation by hand
@validate(table=TABLE, rules=RULES)
def coarsen(table, rules: dict) -> pd.DataFrame:
    """Generalise columns by fixed rules (global recoding, [Sw02]_).

    Each rule replaces every value of one column by a coarser description:

    * numbers, an int ``w ≥ 1``: the bin ``[w·⌊x/w⌋, w·⌊x/w⌋ + w)``, written
      "30–39" for integers (w = 10);
    * dates, ``"year"`` or ``"month"``: "1962" or "1962-05";
    * other values (strings such as ZIP codes), an int ``c ≥ 0``: keep the first
      c characters and star the rest ("021**" for c = 3);
    * any column, ``"*"``: suppress the column (every value becomes "*").

    Columns without a rule are unchanged. The coarsened columns hold strings. Returns
    a new table, with the same index.
    """
    columns_of(table, list(rules), "rules")
    out = table.copy()
    for col, rule in rules.items():
        out[col] = _coarsen_column(col, table[col], rule)
    return out


@validate(table=TABLE, quasi_identifiers=COLUMNS, k=K)
def suppress_small_classes(table, quasi_identifiers, k: int) -> pd.DataFrame:
    """Drop the rows whose class on ``quasi_identifiers`` has fewer than k rows.

    Suppression ([Sw02]_): after generalisation, the rows that are still
    too rare are withheld, which makes the rest k-anonymous (possibly empty). Returns
    the kept rows, with their original index; k is at most the number of rows.
    """
    sizes = class_sizes.__wrapped__(table, quasi_identifiers)
    _at_most_rows(k, table)
    return table[sizes >= k]


# -------------------------------------------------------------------- Mondrian
@dataclass(frozen=True)
class KAnonymousTable:
    """Result of :func:`mondrian_anonymize`.

    Attributes
    ----------
    table : pandas.DataFrame
        The input with every quasi-identifier replaced by its class's
        generalisation (strings, see :func:`mondrian_anonymize`); other columns
        unchanged, same index.
    partition : numpy.ndarray of int64
        The class of each row (0 .. n_classes − 1).
    class_sizes : numpy.ndarray of int64
        Rows per class, each ≥ k.
    information_loss : float
        Mean over rows and quasi-identifiers of the class's width relative to the
        column's range, in [0, 1] (0: nothing generalised; the normalised certainty
        penalty of [XWP+06]_ for ordered attributes).
    discernibility : int
        Σ over classes of size², the discernibility metric of [LDR06]_.
    average_class_ratio : float
        (rows / classes) / k, the normalised average class size of [LDR06]_ (1 is
        the best possible).
    """

    table: pd.DataFrame
    partition: np.ndarray
    class_sizes: np.ndarray
    k: int
    quasi_identifiers: tuple
    information_loss: float
    discernibility: int
    average_class_ratio: float

    @property
    def n_classes(self) -> int:
        """Number of equivalence classes."""
        return int(self.class_sizes.size)


@validate(table=table(MAX_MONDRIAN_ROWS), quasi_identifiers=COLUMNS, k=K)
def mondrian_anonymize(table, quasi_identifiers, k: int) -> KAnonymousTable:
    """k-anonymise ``table`` by Mondrian generalisation ([LDR06]_).

    The rows are split recursively, like a k-d tree: a partition is cut on the
    quasi-identifier whose values spread widest (relative to that column's range
    in the whole table) at the allowable cut point nearest its median, where
    *allowable* means both halves keep at least k rows; if that column has no
    allowable cut the next widest is tried, and a partition with none becomes an
    equivalence class ([LDR06]_, strict multidimensional partitioning).
    Every quasi-identifier of a row is then replaced by a description of its
    class:

    * numbers: the range "lo–hi" (the value itself when all are equal);
    * dates: "YYYY-MM-DD–YYYY-MM-DD";
    * other values (strings), in sorted order: the value, "{a, b}" for up to
      three values, "first–last (m values)" for more, and "*" (suppressed) when
      the class holds every value of the column.

    Classes are disjoint boxes, so their descriptions differ and grouping the
    result by the quasi-identifiers gives back the classes: the output is
    k-anonymous. Nothing is suppressed: every row is kept.

    Cost: about n·d·log(n/k) operations. The quasi-identifiers hold numbers (at most
    1e15 in size), dates, or sortable values (strings), without missing values; k is
    at most the number of rows. :func:`dpteach.attacks.linkage.anonymity_level` checks
    the result.
    """
    cols = columns_of(table, quasi_identifiers, "quasi_identifiers")
    _at_most_rows(k, table)
    columns = [_ordered_codes(c, table[c]) for c in cols]
    X = np.column_stack([c[0] for c in columns])
    widths = X.max(axis=0) - X.min(axis=0)
    parts = sorted(_mondrian_partitions(X, widths, k), key=lambda p: int(p.min()))
    n = len(table)
    partition = np.empty(n, dtype=np.int64)
    sizes = np.array([p.size for p in parts], dtype=np.int64)
    out = table.copy()
    loss = 0.0
    described = [np.empty(n, dtype=object) for _ in cols]
    for cls, idx in enumerate(parts):
        partition[idx] = cls
        sub = X[idx]
        lo, hi = sub.min(axis=0), sub.max(axis=0)
        spread = hi - lo
        for j, (codes, kind, labels) in enumerate(columns):
            present = np.unique(sub[:, j]) if kind == "category" else None
            n_labels = 0 if labels is None else labels.size
            described[j][idx] = _describe_range(kind, labels, n_labels, lo[j], hi[j], present)
            if widths[j] > 0:
                loss += idx.size * min(spread[j] / widths[j], 1.0)
    for j, c in enumerate(cols):
        out[c] = pd.Series(described[j], index=table.index, dtype=object)
    return KAnonymousTable(
        table=out, partition=partition, class_sizes=sizes, k=k, quasi_identifiers=tuple(cols),
        information_loss=float(loss / (n * len(cols))),
        discernibility=int(np.sum(sizes ** 2)),
        average_class_ratio=float(n / sizes.size / k))


# ------------------------------------------------------ attacks on k-anonymity
@validate(table=TABLE, quasi_identifiers=COLUMNS, sensitive=COLUMN)
def l_diversity(table, quasi_identifiers, sensitive: str) -> int:
    """The smallest number of distinct ``sensitive`` values in a class.

    A table is (distinct) ℓ-diverse if every equivalence class holds at least ℓ
    distinct sensitive values, the simplest instance of the principle of
    [MKGV07]_ (they also define entropy and recursive ℓ-diversity). ℓ = 1
    means some class is homogeneous: :func:`homogeneity_attack` succeeds there.
    """
    return homogeneity_attack.__wrapped__(table, quasi_identifiers, sensitive).l


@dataclass(frozen=True)
class HomogeneityResult:
    """Result of :func:`homogeneity_attack`.

    Attributes
    ----------
    classes : pandas.DataFrame
        One row per equivalence class: its quasi-identifier values, ``size``,
        ``distinct`` (number of sensitive values) and ``value`` (the sensitive
        value when ``distinct`` is 1, missing otherwise).
    fraction_classes_exposed : float
        Share of the classes with one sensitive value.
    fraction_rows_exposed : float
        Share of the rows in such classes: whoever knows that a person is in the
        table and their quasi-identifiers learns the sensitive value of these.
    l : int
        The smallest ``distinct`` (see :func:`l_diversity`).
    """

    classes: pd.DataFrame
    fraction_classes_exposed: float
    fraction_rows_exposed: float
    l: int


@validate(table=TABLE, quasi_identifiers=COLUMNS, sensitive=COLUMN)
def homogeneity_attack(table, quasi_identifiers, sensitive: str) -> HomogeneityResult:
    """Read sensitive values off the homogeneous classes of a (k-anonymous) table.

    k-anonymity hides *which* of at least k rows is a person's, not *what* the
    rows say: if all rows of a class share the sensitive value, anyone who can
    place a person in the class learns it ([MKGV07]_, the homogeneity
    attack: Bob's neighbour is in a class where everybody has heart disease).
    ``table`` is e.g. the ``table`` of :func:`mondrian_anonymize`, the quasi-identifiers
    its generalised columns, and ``sensitive`` a column that is not one of them.
    """
    cols = attack_columns(table, quasi_identifiers, sensitive)
    groups = table.groupby(cols, dropna=False, sort=False, observed=True)[sensitive]
    classes = pd.DataFrame({"size": groups.size(),
                            "distinct": groups.nunique(dropna=False),
                            "value": groups.first()}).reset_index()
    homogeneous = classes["distinct"].to_numpy() == 1
    values = classes["value"].to_numpy(dtype=object)
    values[~homogeneous] = None
    classes["value"] = pd.Series(values, index=classes.index, dtype=object)
    sizes = classes["size"].to_numpy()
    return HomogeneityResult(classes, float(homogeneous.mean()),
                             float(sizes[homogeneous].sum() / sizes.sum()),
                             int(classes["distinct"].min()))


@dataclass(frozen=True)
class BackgroundKnowledgeResult:
    """Result of :func:`background_knowledge_attack`.

    Attributes
    ----------
    candidates : dict
        Sensitive value → the attacker's probability for the target, over the
        values left in the target's class (proportional to their counts).
    learned : object or None
        The value when only one is left.
    class_size : int
        Rows in the target's class (k-anonymity promises ≥ k).
    prior : dict
        The same probabilities before the background knowledge is used.
    """

    candidates: dict
    learned: object
    class_size: int
    prior: dict


@validate(table=TABLE, quasi_identifiers=COLUMNS, sensitive=COLUMN, target=TARGET,
          ruled_out=RULED_OUT)
def background_knowledge_attack(table, quasi_identifiers, sensitive: str, target: int,
                                ruled_out) -> BackgroundKnowledgeResult:
    """Combine a class's sensitive values with what the attacker already knows.

    The attacker knows the target's quasi-identifiers, hence the class, and also
    that some sensitive values do not apply to the target (in [MKGV07]_'s example,
    that Japanese people rarely have heart disease). Striking those values
    from the class can leave a single one: the class had k rows but too few
    *plausible* sensitive values. Every remaining value gets probability in
    proportion to its count in the class (a uniform prior over the class's rows).

    Parameters
    ----------
    target : int
        Row position of the person attacked.
    ruled_out : iterable
        Sensitive values the attacker knows the target does not have. Ruling out
        the target's own value is allowed, and misleads.

    Raises
    ------
    ParameterError
        If ``ruled_out`` strikes every value of the target's class.
    """
    cols = attack_columns(table, quasi_identifiers, sensitive)
    if target >= len(table):
        raise refuse("target", target, f"a row position of table, in [0, {len(table) - 1}]")
    codes = equivalence_classes.__wrapped__(table, cols)
    in_class = table[sensitive][codes == codes[target]]
    counts = in_class.value_counts(dropna=False)
    prior = {v: float(c / counts.sum()) for v, c in counts.items()}
    left = {v: c for v, c in counts.items() if not _struck(v, ruled_out)}
    if not left:                                  # every value of the class is struck
        raise refuse("ruled_out", ruled_out, f"free of one of {sorted(map(str, prior))}")
    total = sum(left.values())
    candidates = {v: float(c / total) for v, c in left.items()}
    learned = next(iter(candidates)) if len(candidates) == 1 else None
    return BackgroundKnowledgeResult(candidates, learned, int(in_class.size), prior)


# ------------------------------------------------------------------ helpers
_DATE_RULE = choice("year", "month", "*")
_WIDTH = integer(1, 10**9)
_PREFIX = integer(0, 10**6)


def _at_most_rows(k: int, table: pd.DataFrame) -> None:
    """Refuse a class size ``k`` larger than the table."""
    if k > len(table):
        raise refuse("k", k, f"at most the number of rows of table ({len(table)})")


def _coarsen_column(name: str, series: pd.Series, rule) -> pd.Series:
    where = f"rules[{name!r}]"
    if isinstance(rule, str) and rule == "*":
        return pd.Series(["*"] * len(series), index=series.index, dtype=object)
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        fmt = "%Y" if _DATE_RULE(where, rule) == "year" else "%Y-%m"
        return series.dt.strftime(fmt).astype(object)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series):
        width = _WIDTH(where, rule)
        values = COARSENABLE(f"table[{name!r}]", series.to_numpy(dtype=float))
        lo = np.floor(values / width) * width
        if np.all(values == np.round(values)):
            return pd.Series([f"{int(a)}–{int(a) + width - 1}" if width > 1 else f"{int(a)}"
                              for a in lo], index=series.index, dtype=object)
        return pd.Series([f"[{a:.15g}, {a + width:.15g})" for a in lo], index=series.index,
                         dtype=object)
    keep = _PREFIX(where, rule)
    text = series.astype(str).to_numpy(dtype=object)
    return pd.Series([t[:keep] + "*" * max(len(t) - keep, 0) for t in text],
                     index=series.index, dtype=object)


def _ordered_codes(name: str, series: pd.Series):
    """(float codes preserving order, kind, labels) for one quasi-identifier column."""
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series):
        return MONDRIAN_NUMBERS(f"table[{name!r}]", series.to_numpy(dtype=float)), "number", None
    if series.isna().any():
        raise refuse(f"table[{name!r}]", series.tolist(), "without missing values (Mondrian)")
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        days = series.to_numpy(dtype="datetime64[D]").astype(np.int64)
        return days.astype(float), "date", None
    try:
        codes, labels = pd.factorize(series, sort=True)
    except TypeError:
        raise refuse(f"table[{name!r}]", series.tolist(), "sortable (all str or numbers)") from None
    return codes.astype(float), "category", np.asarray(labels, dtype=object)


def _best_cut(col: np.ndarray, k: int):
    """The allowable cut value closest to the median, or None ([LDR06]_: both sides ≥ k)."""
    values, counts = np.unique(col, return_counts=True)
    if values.size < 2:
        return None
    left = np.cumsum(counts)[:-1]
    ok = (left >= k) & (col.size - left >= k)
    if not ok.any():
        return None
    i = np.flatnonzero(ok)[np.argmin(np.abs(left[ok] - col.size / 2))]
    return values[i]


def _mondrian_partitions(X: np.ndarray, widths: np.ndarray, k: int) -> list:
    """Greedy strict multidimensional partitioning ([LDR06]_, the median heuristic):
    split the partition on the attribute with the widest normalised range at (near) its
    median, as long as both halves keep k rows; try the next attribute otherwise."""
    stack, done = [np.arange(X.shape[0])], []
    safe = np.where(widths > 0, widths, 1.0)
    while stack:
        idx = stack.pop()
        sub = X[idx]
        spans = (sub.max(axis=0) - sub.min(axis=0)) / safe
        split = False
        if idx.size >= 2 * k:
            for j in np.argsort(-spans, kind="stable"):
                if spans[j] <= 0:
                    break
                cut = _best_cut(sub[:, j], k)
                if cut is not None:
                    left = sub[:, j] <= cut
                    stack.append(idx[~left])
                    stack.append(idx[left])
                    split = True
                    break
        if not split:
            done.append(idx)
    return done


def _describe_number(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(float(v))


def _describe_range(kind, labels, n_labels, lo, hi, present) -> str:
    if kind == "date":
        a = str(np.datetime64(int(lo), "D"))
        return a if lo == hi else f"{a}–{np.datetime64(int(hi), 'D')}"
    if kind == "number":
        a, b = _describe_number(lo), _describe_number(hi)
        return a if lo == hi else f"{a}–{b}"
    values = [str(labels[int(c)]) for c in present]
    if len(values) == 1:
        return values[0]
    if len(values) == n_labels:
        return "*"
    if len(values) <= 3:
        return "{" + ", ".join(values) + "}"
    return f"{values[0]}–{values[-1]} ({len(values)} values)"


def _struck(value, ruled_out: list) -> bool:
    """Whether the attacker rules ``value`` out (NaN matches NaN)."""
    for e in ruled_out:
        try:
            if value == e or (isinstance(value, float) and isinstance(e, numbers.Real)
                              and math.isnan(value) and math.isnan(e)):
                return True
        except (TypeError, ValueError, ArithmeticError):
            continue
    return False


def _rules(name: str, value: Any) -> dict:
    if isinstance(value, dict) and 1 <= len(value) <= MAX_ATTRIBUTES \
            and all(isinstance(c, str) for c in value):
        return value
    raise RULES.refuse(name, value)


def _ruled_out(name: str, value: Any) -> list:
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        values = list(value)
        if len(values) <= 10_000:
            return values
    raise RULED_OUT.refuse(name, value)


# Engineering notes: docs/library/attacks.md.
