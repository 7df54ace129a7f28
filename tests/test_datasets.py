"""Tests of dpteach.datasets: the shipped files, their loaders and the synthetic databases.

The row counts are the published ones: UCI Adult has 32,561 training and 16,281 test rows
(48,842 in all) and 45,222 rows without a missing value (30,162 / 15,060), as reported in
adult.names and used throughout the fairness literature; German credit has 1,000 rows.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources

import numpy as np
import pytest

from dpteach import datasets as ds
from dpteach._validation import ParameterError


@pytest.fixture(scope="module")
def adult():
    return ds.load_adult()


@pytest.fixture(scope="module")
def arrays():
    return ds.adult_arrays()


# ----------------------------------------------------------------------- provenance
def _provenance_checksums():
    text = resources.files("dpteach").joinpath("data", "PROVENANCE.md").read_text()
    found = dict((name, digest) for digest, name in
                 re.findall(r"^\s*md5\s+([0-9a-f]{32})\s+(\S+)", text, flags=re.M))
    return found


def test_provenance_lists_every_data_file():
    sums = _provenance_checksums()
    assert set(sums) == {"adult.data", "adult.test", "german.data", "mnist_5k.csv"}


@pytest.mark.parametrize("name", ["adult.data", "adult.test", "german.data", "mnist_5k.csv"])
def test_md5_of_decompressed_files_matches_provenance(name):
    expected = _provenance_checksums()[name]
    with resources.files("dpteach").joinpath("data", name + ".gz").open("rb") as fh:
        raw = gzip.decompress(fh.read())
    assert hashlib.md5(raw).hexdigest() == expected


# ---------------------------------------------------------------------------- Adult
def test_load_adult_rows_and_split(adult):
    assert len(adult) == 48_842
    assert (adult["split"] == "train").sum() == 32_561
    assert (adult["split"] == "test").sum() == 16_281
    assert list(adult.columns) == ds.ADULT_COLUMNS + ["split"]


def test_load_adult_labels(adult):
    assert set(adult["income"]) == {"<=50K", ">50K"}
    assert not adult["income"].str.endswith(".").any()
    # the well-known class balance: 11,687 of 48,842 earn >50K (7,841 train, 3,846 test)
    assert (adult["income"] == ">50K").sum() == 11_687
    assert ((adult["income"] == ">50K") & (adult["split"] == "train")).sum() == 7_841


def test_load_adult_types_and_missing(adult):
    for col in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss",
                "hours-per-week"):
        assert adult[col].dtype == np.int64
    # '?' is read as missing, and only three categorical columns have missing values
    assert set(adult.columns[adult.isna().any()]) == {"workclass", "occupation", "native-country"}
    assert not (adult == "?").any().any()
    # no stray whitespace left from the ', ' separator
    for col in ("workclass", "sex", "race", "income"):
        values = adult[col].dropna()
        assert (values == values.str.strip()).all()


def test_load_adult_returns_a_copy(adult):
    df = ds.load_adult()
    df.loc[0, "age"] = -1
    assert ds.load_adult().loc[0, "age"] == adult.loc[0, "age"] != -1


def test_adult_arrays_shapes_and_split(arrays):
    assert arrays.X.shape[0] == 45_222
    assert arrays.X.shape[1] == len(arrays.feature_names)
    assert arrays.y.shape == arrays.sex.shape == arrays.split.shape == (45_222,)
    X_train, X_test, y_train, y_test = arrays.train_test()
    assert X_train.shape[0] == y_train.shape[0] == 30_162
    assert X_test.shape[0] == y_test.shape[0] == 15_060
    assert set(np.unique(arrays.y)) == {0, 1} and set(np.unique(arrays.sex)) == {0, 1}


def test_adult_arrays_features_in_unit_interval(arrays):
    assert arrays.X.dtype == np.float64
    assert np.all(np.isfinite(arrays.X))
    assert arrays.X.min() >= 0.0 and arrays.X.max() <= 1.0


def test_adult_arrays_one_hot_groups_sum_to_one(arrays):
    names = np.array(arrays.feature_names)
    groups = sorted({n.split("=")[0] for n in names if "=" in n})
    assert groups == sorted(ds._ADULT_CATEGORIES)
    for g in groups:
        cols = np.array([n.startswith(g + "=") for n in names])
        assert np.array_equal(arrays.X[:, cols].sum(axis=1), np.ones(len(arrays.X))), g


def test_adult_arrays_feature_values(adult, arrays):
    # labels and sex agree with the DataFrame rows that survive dropna
    kept = adult.dropna()
    assert np.array_equal(arrays.y, (kept["income"] == ">50K").to_numpy().astype(int))
    assert np.array_equal(arrays.sex, (kept["sex"] == "Female").to_numpy().astype(int))
    names = arrays.feature_names
    # age scaled linearly by the public bounds 17..90
    age = arrays.X[:, names.index("age")]
    assert np.allclose(age, (kept["age"].to_numpy() - 17) / 73)
    # capital-gain as log(1+x)/log(1+99999)
    gain = arrays.X[:, names.index("capital-gain")]
    assert np.allclose(gain, np.log1p(kept["capital-gain"].to_numpy()) / np.log1p(99_999))
    assert "fnlwgt" not in names


def test_adult_arrays_without_sex_and_with_missing(adult):
    no_sex = ds.adult_arrays(adult.head(500), include_sex=False)
    assert not any(n.startswith("sex=") for n in no_sex.feature_names)
    with_missing = ds.adult_arrays(adult, drop_missing=False)
    assert with_missing.X.shape[0] == 48_842
    # a missing category gets all-zero indicators in its group, every other group sums to 1
    cols = np.array([n.startswith("workclass=") for n in with_missing.feature_names])
    wc_sum = with_missing.X[:, cols].sum(axis=1)
    assert np.array_equal(wc_sum == 0, adult["workclass"].isna().to_numpy())


def test_adult_arrays_refuses_unknown_values(adult):
    df = adult.head(50).copy()
    df.loc[3, "sex"] = " Male"
    with pytest.raises(ValueError, match=r"df\['sex'\] must be the categories of adult.names; got .*' Male'"):
        ds.adult_arrays(df)
    df = adult.head(50).copy()
    df.loc[3, "income"] = "<=50K."
    with pytest.raises(ValueError, match=r"df\['income'\] must be '<=50K' or '>50K'; got .*'<=50K.'"):
        ds.adult_arrays(df)
    df = adult.head(50).copy()
    df.loc[3, "split"] = "validation"
    with pytest.raises(ValueError, match=r"df\['split'\] must be 'train' or 'test'"):
        ds.adult_arrays(df)
    df = adult.head(50).copy()
    df["age"] = df["age"].astype(float)
    df.loc[3, "age"] = np.nan
    with pytest.raises(ValueError, match=r"df\['age'\] must be finite numbers, none missing"):
        ds.adult_arrays(df, drop_missing=False)
    with pytest.raises(ParameterError,
                       match=r"df's missing columns must be none \(those of load_adult\(\)\); "
                             r"got df's missing columns=\['income'\]"):
        ds.adult_arrays(adult.drop(columns="income"))


def _adult_with(adult, column, value):
    """Six complete rows of Adult with the first value of ``column`` replaced."""
    df = adult.dropna().head(6).reset_index(drop=True)
    values = df[column].tolist()
    values[0] = value
    df[column] = values
    return df


def test_adult_arrays_numeric_columns_at_the_ends(adult):
    # an int beyond the float range: refused by name (pandas raised a bare OverflowError)
    for value in (10**400, -(10**400)):
        with pytest.raises(ParameterError, match=r"df\['age'\] must be finite numbers, none missing"):
            ds.adult_arrays(_adult_with(adult, "age", value))
    # values beyond the public bounds are clipped onto them: exactly 1 and 0
    arr = ds.adult_arrays(_adult_with(adult, "capital-gain", 1.7976931348623157e308))
    assert arr.X[0, arr.feature_names.index("capital-gain")] == 1.0
    arr = ds.adult_arrays(_adult_with(adult, "age", 5e-324))
    assert arr.X[0, arr.feature_names.index("age")] == 0.0


def test_adult_arrays_without_split_column(adult):
    out = ds.adult_arrays(adult.head(100).drop(columns="split"))
    assert set(out.split) == {"train"}
    X_tr, X_te, y_tr, y_te = ds.adult_arrays(adult.head(200)).train_test()
    assert len(X_tr) + len(X_te) == len(y_tr) + len(y_te) <= 200


def test_parameterless_loaders_reject_arguments():
    for loader in (ds.load_adult, ds.load_german):
        with pytest.raises(TypeError, match=loader.__name__):
            loader(1)


# --------------------------------------------------------------------------- German
def test_load_german():
    df = ds.load_german()
    assert df.shape == (1_000, 21)
    assert list(df.columns) == ds.GERMAN_COLUMNS
    assert set(df["credit_risk"]) == {1, 2}
    assert (df["credit_risk"] == 1).sum() == 700           # 700 good, 300 bad (german.doc)
    assert df["age"].between(19, 75).all()
    assert df["checking_status"].str.fullmatch(r"A1[1-4]").all()
    assert not df.isna().any().any()


# ---------------------------------------------------------------------------- MNIST
def test_load_mnist_5k_raw():
    X, y = ds.load_mnist_5k()
    assert X.shape == (5_000, 784) and X.dtype == np.uint8
    assert y.shape == (5_000,) and y.dtype == np.int64
    assert set(np.unique(y)) == set(range(10))
    assert X.max() == 255 and X.min() == 0
    # 500 digits of each class, stored sorted by label (so shuffle before splitting)
    assert np.array_equal(np.bincount(y), np.full(10, 500))
    assert np.all(np.diff(y) >= 0)


def test_load_mnist_5k_scaled_and_fresh_copies():
    Xs, ys = ds.load_mnist_5k(scale=True)
    X, y = ds.load_mnist_5k()
    assert Xs.dtype == np.float32 and Xs.min() >= 0.0 and Xs.max() <= 1.0
    assert np.allclose(Xs, X / 255.0)
    original = int(X[0, 0])
    X[0, 0] = original + 1
    y[0] = 7
    X2, y2 = ds.load_mnist_5k()
    assert X2[0, 0] == original           # callers cannot corrupt the cache
    assert np.array_equal(y2, ys) and y2[0] == 0


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_load_mnist_5k_scale_must_be_bool(bad):
    with pytest.raises(TypeError, match=r"scale must be True or False; got scale="):
        ds.load_mnist_5k(scale=bad)


# ----------------------------------------------------------- parallel databases
@pytest.mark.parametrize("n, p", [(2, 0.5), (7, 0.3), (50, 0.9), (300, 0.5)])
def test_parallel_databases_remove_one_person_each(n, p):
    db, parallel = ds.make_parallel_databases(n, p, rng=11)
    assert db.shape == (n,) and parallel.shape == (n, n - 1)
    assert set(np.unique(db)) <= {0, 1}
    for i in range(n):
        assert np.array_equal(parallel[i], np.delete(db, i))


def test_parallel_databases_bernoulli_rate():
    db, _ = ds.make_parallel_databases(2_000, 0.3, rng=5)
    # mean of 2,000 Bernoulli(0.3) bits: SE = √(0.3·0.7/2000) ≈ 0.0102; allow 5 SE
    assert abs(db.mean() - 0.3) <= 5 * np.sqrt(0.3 * 0.7 / 2_000)
    assert ds.make_parallel_databases(10, 0.0, rng=0)[0].sum() == 0
    assert ds.make_parallel_databases(10, 1.0, rng=0)[0].sum() == 10


def test_parallel_databases_rng():
    a = ds.make_parallel_databases(20, rng=3)
    b = ds.make_parallel_databases(20, rng=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    g = np.random.default_rng(0)
    first = ds.make_parallel_databases(64, rng=g)[0]
    second = ds.make_parallel_databases(64, rng=g)[0]
    assert not np.array_equal(first, second)
    np.random.seed(1)
    before = np.random.get_state()[1].copy()
    ds.make_parallel_databases(20)
    assert np.array_equal(np.random.get_state()[1], before)


@pytest.mark.parametrize("n, err, pattern", [
    (1, ValueError, r"n must be an integer in \[2, 2000\]; got n=1"),
    (2_001, ValueError, r"n must be an integer in \[2, 2000\]; got n=2001"),
    (10**400, ValueError, r"n must be an integer in \[2, 2000\]; got n=1000"),
    (10.0, TypeError, r"n must be an integer in \[2, 2000\]; got n=10\.0"),
    ("10", TypeError, r"n must be an integer"),
    (True, TypeError, r"n must be an integer"),
])
def test_parallel_databases_validates_n(n, err, pattern):
    with pytest.raises(err, match=pattern):
        ds.make_parallel_databases(n)


@pytest.mark.parametrize("p", [-0.1, 1.5, np.nan, np.inf, "0.5", None])
def test_parallel_databases_validates_p(p):
    with pytest.raises((ValueError, TypeError), match=r"^p must be (a number )?in \[0, 1\]"):
        ds.make_parallel_databases(10, p)


# ------------------------------------------------------------------ toy data sets
def test_make_toy_data():
    X, y = ds.make_toy_data(200, rng=0)
    assert X.shape == (200, 2) and np.bincount(y).tolist() == [100, 100]
    X2, y2 = ds.make_toy_data(200, rng=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    # class means near their centres: sd 0.8, 100 points -> SE 0.08 per coordinate, 5 SE
    assert np.all(np.abs(X[y == 0].mean(axis=0) - [-0.6, -0.2]) <= 5 * 0.08)
    assert np.all(np.abs(X[y == 1].mean(axis=0) - [1.2, 0.9]) <= 5 * 0.08)
    for bad in (3, 201, 0, 2.0, "200"):
        with pytest.raises((ValueError, TypeError), match="n"):
            ds.make_toy_data(bad)


def test_make_two_moons_is_scikit_learns_standardised():
    from sklearn.datasets import make_moons

    X, y = ds.make_two_moons(200, noise=0.25, rng=0)
    Xs, ys = make_moons(200, noise=0.25, random_state=0)
    np.testing.assert_allclose(X, (Xs - Xs.mean(axis=0)) / Xs.std(axis=0))
    np.testing.assert_array_equal(y, ys)
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1)
    assert np.bincount(y).tolist() == [100, 100]
    # a Generator drives the same sampler, reproducibly and without global state
    state = np.random.get_state()[1].copy()
    a = ds.make_two_moons(50, rng=np.random.default_rng(3))
    b = ds.make_two_moons(50, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    # an int seed beyond scikit-learn's 2**32 - 1 drives its sampler through a Generator
    c = ds.make_two_moons(50, rng=2**32)
    assert np.isfinite(c[0]).all() and np.bincount(c[1]).tolist() == [25, 25]
    for kwargs, err in (({"n": 3}, ValueError), ({"noise": -0.1}, ValueError),
                        ({"noise": "0.1"}, TypeError), ({"rng": -1}, ValueError)):
        with pytest.raises(err, match=next(iter(kwargs))):
            ds.make_two_moons(**kwargs)


def test_make_two_moons_negative_zero_noise_is_no_noise():
    # -0.0 is 0 ("≥ 0"), but NumPy refused a normal scale of -0.0 with a bare "scale < 0":
    # the domain now passes it on as 0.0 (issue 21's known edge)
    X, y = ds.make_two_moons(50, noise=-0.0, rng=7)
    X0, y0 = ds.make_two_moons(50, noise=0.0, rng=7)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_datasets_do_not_download(monkeypatch):
    # Everything ships with the package: loading works with sockets disabled.
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("datasets tried to open a network connection")

    monkeypatch.setattr(socket, "socket", no_network)
    ds._load_adult_cached.cache_clear()
    ds._load_mnist_cached.cache_clear()
    assert len(ds.load_adult()) == 48_842
    assert ds.load_german().shape == (1_000, 21)
    assert ds.load_mnist_5k()[0].shape == (5_000, 784)
