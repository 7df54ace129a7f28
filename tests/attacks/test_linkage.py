"""Tests for dpteach.attacks.linkage (uniqueness, linkage) and dpteach.attacks.kanonymity
(k-anonymity by generalisation and its attacks)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from _props import call_rejects
from dpteach._validation import ParameterError
from dpteach.attacks import kanonymity as K
from dpteach.attacks import linkage as L
from dpteach.attacks._tables import COLUMN, COLUMNS, TABLE, columns_of, table

Z = stats.norm.isf(1e-6 / 2)          # ≈ 4.9 standard errors for every statistical check


# ----------------------------------------------------------------- fixtures
def medical_release():
    """A hand-made "de-identified" release (Sweeney's example, shrunk to six rows)."""
    return pd.DataFrame({
        "zip": ["02138", "02138", "02138", "02139", "02139", "02140"],
        "birth_date": pd.to_datetime(["1945-07-31", "1960-01-01", "1960-01-01", "1970-05-05",
                                      "1970-05-05", "1980-02-02"]),
        "sex": ["M", "F", "F", "M", "M", "F"],
        "diagnosis": ["hypertension", "flu", "flu", "diabetes", "asthma", "cancer"]})


def voter_roster():
    return pd.DataFrame({
        "name": ["Weld", "Alice", "Bob", "Carol", "Dave"],
        "zip": ["02138", "02138", "02139", "02140", "02141"],
        "birth_date": pd.to_datetime(["1945-07-31", "1960-01-01", "1970-05-05", "1980-02-02",
                                      "1990-03-03"]),
        "sex": ["M", "F", "M", "F", "M"]})


QI = ["zip", "birth_date", "sex"]


@pytest.fixture(scope="module")
def adult():
    return L.adult_with_quasi_identifiers(3000, rng=0)


# ------------------------------------------------------------------- linkage
def test_linkage_finds_the_expected_reidentifications():
    res = L.linkage_attack(medical_release(), voter_roster(), QI, "diagnosis")
    m = res.matches
    assert m["candidates"].tolist() == [1, 2, 2, 1, 0]
    assert m["reidentified"].tolist() == [True, False, False, True, False]
    # Alice's two candidates share "flu": disclosed without re-identification (homogeneity)
    assert m["learned"].tolist() == [True, True, False, True, False]
    assert m["diagnosis"].tolist() == ["hypertension", "flu", None, "cancer", None]
    assert m["name"].tolist() == voter_roster()["name"].tolist()
    assert (res.n_roster, res.n_reidentified, res.n_learned) == (5, 2, 3)
    assert res.fraction_reidentified == 0.4 and res.fraction_learned == 0.6
    # with fewer quasi-identifiers nobody is unique
    res = L.linkage_attack(medical_release(), voter_roster(), ["sex"], "diagnosis")
    assert res.n_reidentified == 0 and res.matches["candidates"].tolist() == [3, 3, 3, 3, 3]


def test_linkage_on_adult_reidentifies_the_unique_rows(adult):
    release = L.deidentify(adult, [*QI, "income"], rng=1)
    assert list(release.columns) == [*QI, "income"] and len(release) == len(adult)
    assert release.index.equals(pd.RangeIndex(len(adult)))          # index reset, rows shuffled
    pd.testing.assert_frame_equal(
        release.sort_values([*QI, "income"]).reset_index(drop=True),
        adult[[*QI, "income"]].sort_values([*QI, "income"]).reset_index(drop=True))
    assert not release["zip"].equals(adult["zip"])
    res = L.linkage_attack(release, adult[["name", *QI]], QI, "income")
    sizes = L.class_sizes(adult, QI)
    # a roster person is re-identified exactly when unique in the (full) release
    np.testing.assert_array_equal(res.matches["reidentified"].to_numpy(), sizes == 1)
    assert res.fraction_reidentified == L.fraction_unique(adult, QI)
    # every re-identification names the person's true income
    right = res.matches["reidentified"].to_numpy()
    assert (res.matches["income"][right] == adult["income"][right]).all()
    assert res.fraction_reidentified > 0.9   # 3,000 people in 25 ZIP codes: almost all unique


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.sampled_from("xyz")),
                min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=10))
def test_linkage_candidates_are_brute_force_matches(rel_rows, roster_rows):
    release = pd.DataFrame(rel_rows, columns=["a", "b", "s"])
    roster = pd.DataFrame(roster_rows, columns=["a", "b"])
    res = L.linkage_attack(release, roster, ["a", "b"], "s")
    for i, (a, b) in enumerate(roster_rows):
        hits = [s for (ra, rb, s) in rel_rows if (ra, rb) == (a, b)]
        assert res.matches["candidates"].iloc[i] == len(hits)
        assert res.matches["learned"].iloc[i] == (len(set(hits)) == 1)
        assert res.matches["s"].iloc[i] == (hits[0] if len(set(hits)) == 1 else None)
    assert res.n_reidentified == int((res.matches["candidates"] == 1).sum())


def test_linkage_refuses_incomparable_columns():
    roster = voter_roster().assign(birth_date=lambda d: d["birth_date"].astype(str))
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        L.linkage_attack(medical_release(), roster, QI, "diagnosis")
    with pytest.raises(ParameterError, match="sensitive"):
        L.linkage_attack(medical_release(), voter_roster(), QI, "sex")
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        L.linkage_attack(medical_release(), voter_roster(), ["zip", "diagnosis"], "sex")


# ----------------------------------------------------------- synthetic columns
def test_synthetic_columns_are_seeded_and_consistent_with_age():
    a = L.adult_with_quasi_identifiers(500, rng=7)
    b = L.adult_with_quasi_identifiers(500, rng=7)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["name", "zip", "birth_date", "sex", "age", "race",
                               *L.SENSITIVE_COLUMNS]
    ref = pd.Timestamp(L.REFERENCE_DATE)
    born = a["birth_date"]
    age = ref.year - born.dt.year - ((born.dt.month > ref.month)
                                     | ((born.dt.month == ref.month) & (born.dt.day > ref.day)))
    np.testing.assert_array_equal(age.to_numpy(), a["age"].to_numpy())
    assert a["zip"].str.fullmatch(r"\d{5}").all() and a["name"].is_unique
    assert len(L.adult_with_quasi_identifiers(rng=0)) == 45_222


def test_zip_codes_follow_zipf_weights():
    t = L.adult_with_quasi_identifiers(rng=3, n_zip_codes=10)
    share = t["zip"].value_counts(normalize=True)
    h = sum(1 / j for j in range(1, 11))
    n = len(t)
    for j, code in enumerate(sorted(share.index)):
        p = 1 / (j + 1) / h                        # Zipf weight of the j-th code
        # a share of n multinomial draws: standard error √(p(1−p)/n)
        assert abs(share[code] - p) <= Z * math.sqrt(p * (1 - p) / n), code


def test_sweeneys_triple_singles_out_most_of_adult():
    t = L.adult_with_quasi_identifiers(rng=0)
    # (synthetic) ZIP code, birth date and sex: 86% unique; Adult's own age, sex, race: 0.1%
    assert L.fraction_unique(t, ["zip", "birth_date", "sex"]) > 0.8
    assert L.fraction_unique(t, list(L.ADULT_QUASI_IDENTIFIERS)) < 0.01
    assert L.anonymity_level(t, ["sex"]) > 10_000


# ---------------------------------------------------------------- uniqueness
def test_class_sizes_and_levels_on_a_tiny_table():
    t = medical_release()
    np.testing.assert_array_equal(L.class_sizes(t, QI), [1, 2, 2, 2, 2, 1])
    assert L.fraction_unique(t, QI) == pytest.approx(2 / 6)
    assert L.anonymity_level(t, QI) == 1 and L.anonymity_level(t, "sex") == 3
    np.testing.assert_allclose(L.uniqueness_curve(t, ["sex", "zip", "birth_date"]),
                               [0.0, 2 / 6, 2 / 6])
    # missing values are a value of their own
    t2 = pd.DataFrame({"a": [1.0, np.nan, np.nan, 2.0]})
    np.testing.assert_array_equal(L.class_sizes(t2, "a"), [1, 2, 2, 1])


def test_equivalence_classes_number_the_classes_in_order_of_first_row():
    t = medical_release()
    np.testing.assert_array_equal(L.equivalence_classes(t, QI), [0, 1, 1, 2, 2, 3])
    np.testing.assert_array_equal(L.equivalence_classes(t, "sex"), [0, 1, 1, 0, 0, 1])
    t2 = pd.DataFrame({"a": [np.nan, 1.0, np.nan]})          # missing: a value of its own
    np.testing.assert_array_equal(L.equivalence_classes(t2, "a"), [0, 1, 0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                min_size=1, max_size=40))
def test_equivalence_classes_are_brute_force_groups(rows):
    t = pd.DataFrame(rows, columns=["a", "b", "c"])
    codes = L.equivalence_classes(t, ["a", "b"])
    first = {}
    for r in rows:
        first.setdefault(r[:2], len(first))
    np.testing.assert_array_equal(codes, [first[r[:2]] for r in rows])
    np.testing.assert_array_equal(L.class_sizes(t, ["a", "b"]), np.bincount(codes)[codes])


def test_table_domains_return_their_input_and_name_the_argument():
    t = medical_release()
    assert TABLE("release", t) is t
    assert COLUMNS("quasi_identifiers", "zip") == ["zip"]
    assert COLUMNS("keep", ("zip", "sex")) == ["zip", "sex"]
    assert columns_of(t, ["zip", "sex"], "keep", "release") == ["zip", "sex"]
    assert COLUMN("sensitive", "diagnosis") == "diagnosis"
    with pytest.raises(ParameterError, match=r"len\(release\) must be 1 to 5 \(rows\); got "
                                             r"len\(release\)=6"):
        table(max_rows=5)("release", t)
    with pytest.raises(ParameterError, match="roster must be a pandas DataFrame"):
        TABLE("roster", t.to_dict())
    with pytest.raises(ParameterError, match="keep must be columns of release"):
        columns_of(t, ["zip", "nope"], "keep", "release")
    with pytest.raises(ParameterError, match="sensitive must be a column name"):
        COLUMN("sensitive", ["diagnosis"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                min_size=1, max_size=40))
def test_uniqueness_curve_never_falls(rows):
    t = pd.DataFrame(rows, columns=["a", "b", "c"])
    curve = L.uniqueness_curve(t, ["a", "b", "c"])
    assert np.all(np.diff(curve) >= 0) and np.all((curve >= 0) & (curve <= 1))
    assert curve[-1] == L.fraction_unique(t, ["a", "b", "c"])


def test_expected_fraction_unique_matches_random_data():
    assert L.expected_fraction_unique(1, 1) == 1.0 and L.expected_fraction_unique(5, 1) == 0.0
    # the ends of the teaching domain (counts below 2**53): 1 − 9/m, and an exact 0
    assert L.expected_fraction_unique(10, 2**53 - 1) == pytest.approx(1 - 9 / 2**53, rel=1e-15)
    assert L.expected_fraction_unique(10**12, 10**6) == 0.0
    assert L.expected_fraction_unique(3, 2) == pytest.approx(0.25)        # (1 − ½)²
    rng = np.random.default_rng(11)
    n, v, d, runs = 200, 4, 4, 60                          # m = 256 cells
    expected = L.expected_fraction_unique(n, v**d)
    assert expected == pytest.approx((1 - 1 / 256) ** 199)
    cols = [f"a{j}" for j in range(d)]
    got = [L.fraction_unique(pd.DataFrame(rng.integers(0, v, (n, d)), columns=cols), cols)
           for _ in range(runs)]
    # the mean of `runs` independent fractions: standard error ≤ sd/√runs (sample sd)
    assert abs(np.mean(got) - expected) <= Z * np.std(got, ddof=1) / math.sqrt(runs) + 1e-12


# ----------------------------------------------------------- generalisation
def test_coarsen_and_suppress():
    t = pd.DataFrame({"age": [31, 38, 45, 47, 47], "zip": ["02138", "02139", "02141",
                                                            "02141", "02199"],
                      "born": pd.to_datetime(["1960-05-01", "1960-07-01", "1950-01-02",
                                              "1950-03-03", "1950-03-03"]),
                      "sex": ["M", "F", "F", "M", "F"]})
    c = K.coarsen(t, {"age": 10, "zip": 3, "born": "year", "sex": "*"})
    assert c["age"].tolist() == ["30–39", "30–39", "40–49", "40–49", "40–49"]
    assert c["zip"].tolist() == ["021**"] * 5
    assert c["born"].tolist() == ["1960", "1960", "1950", "1950", "1950"]
    assert c["sex"].tolist() == ["*"] * 5
    assert K.coarsen(t, {"born": "month"})["born"].iloc[0] == "1960-05"
    assert L.anonymity_level(c, ["age", "zip", "born", "sex"]) == 2
    kept = K.suppress_small_classes(K.coarsen(t, {"age": 5}), ["age"], 2)
    assert kept.index.tolist() == [2, 3, 4]           # 30–34 and 35–39 hold one row each
    assert L.anonymity_level(kept, ["age"]) >= 2
    with pytest.raises(ParameterError, match="k"):
        K.suppress_small_classes(t, ["age"], 6)
    with pytest.raises(ParameterError, match="rules"):
        K.coarsen(t, {"born": 3})


def _table(data, n):
    ints = data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=n,
                              max_size=n))
    days = data.draw(st.lists(st.integers(0, 3000), min_size=n, max_size=n))
    return pd.DataFrame({"x": ints, "cat": cats,
                         "day": pd.Timestamp("2000-01-01") + pd.to_timedelta(days, "D"),
                         "secret": np.arange(n) % 3})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mondrian_output_is_k_anonymous(data):
    n = data.draw(st.integers(1, 40))
    k = data.draw(st.integers(1, n))
    cols = data.draw(st.sampled_from([["x"], ["cat"], ["day"], ["x", "cat"],
                                      ["x", "cat", "day"]]))
    t = _table(data, n)
    res = K.mondrian_anonymize(t, cols, k)
    out = res.table
    # every class has at least k rows, and the descriptions give back exactly the classes
    assert L.anonymity_level(out, cols) >= k
    assert res.class_sizes.min() >= k and res.class_sizes.sum() == n
    groups = out.groupby(cols, sort=False).ngroup().to_numpy()
    assert len(set(zip(groups, res.partition))) == res.n_classes == len(set(groups))
    pd.testing.assert_frame_equal(out.drop(columns=cols), t.drop(columns=cols))
    # every original value lies inside its class's description
    for cls in range(res.n_classes):
        rows = t[res.partition == cls]
        if "x" in cols:
            lo, hi = rows["x"].min(), rows["x"].max()
            assert set(out["x"][res.partition == cls]) == {str(lo) if lo == hi else f"{lo}–{hi}"}
        if "cat" in cols:
            vals = sorted(set(rows["cat"]))
            expected = (vals[0] if len(vals) == 1 else "*" if len(vals) == t["cat"].nunique()
                        else "{" + ", ".join(vals) + "}" if len(vals) <= 3
                        else f"{vals[0]}–{vals[-1]} ({len(vals)} values)")
            assert set(out["cat"][res.partition == cls]) == {expected}
    assert 0.0 <= res.information_loss <= 1.0 and res.average_class_ratio >= 1.0
    assert res.discernibility == int(np.sum(res.class_sizes ** 2))


def test_mondrian_with_k_one_keeps_distinct_rows_apart():
    t = pd.DataFrame({"x": [1, 2, 2, 3, 3, 3], "y": ["a", "b", "b", "a", "a", "c"]})
    res = K.mondrian_anonymize(t, ["x", "y"], 1)
    assert res.n_classes == 4 and res.information_loss == 0.0       # nothing generalised
    pd.testing.assert_frame_equal(res.table.astype(str), t.astype(str))


def test_mondrian_refuses_k_larger_than_the_table():
    t = medical_release()
    with pytest.raises(ParameterError, match=r"k must be at most the number of rows"):
        K.mondrian_anonymize(t, QI, 7)
    res = K.mondrian_anonymize(t, QI, 6)                # the whole table is one class
    assert res.n_classes == 1 and set(res.table["sex"]) == {"*"}
    assert res.table["zip"].iloc[0] == "*"                       # every ZIP code: suppressed
    assert res.table["birth_date"].iloc[0] == "1945-07-31–1980-02-02"
    res = K.mondrian_anonymize(t, "zip", 3)              # cut between 02138 and the rest
    assert res.table["zip"].tolist() == ["02138"] * 3 + ["{02139, 02140}"] * 3


def test_mondrian_on_adult_is_k_anonymous():
    # its time on all of Adult: benchmarks/bench_library_calls.py
    t = L.adult_with_quasi_identifiers(rng=0)
    res = K.mondrian_anonymize(t, ["zip", "birth_date", "sex", "age", "race"], 5)
    assert L.anonymity_level(res.table, list(res.quasi_identifiers)) == 5
    # a larger k coarsens more
    res25 = K.mondrian_anonymize(t.iloc[:5000], ["zip", "birth_date", "sex"], 25)
    res5 = K.mondrian_anonymize(t.iloc[:5000], ["zip", "birth_date", "sex"], 5)
    assert res25.information_loss > res5.information_loss
    assert res25.n_classes < res5.n_classes


# ------------------------------------------------------ attacks on k-anonymity
def anonymous_clinic():
    # 2-anonymous on (zip, age); class A is homogeneous, class B is not
    return pd.DataFrame({"zip": ["130**", "130**", "148**", "148**", "148**"],
                         "age": ["<30", "<30", "≥40", "≥40", "≥40"],
                         "disease": ["heart", "heart", "flu", "cancer", "flu"]})


def test_homogeneity_attack_and_l_diversity():
    res = K.homogeneity_attack(anonymous_clinic(), ["zip", "age"], "disease")
    assert res.fraction_classes_exposed == 0.5 and res.fraction_rows_exposed == 0.4
    assert res.l == 1 == K.l_diversity(anonymous_clinic(), ["zip", "age"], "disease")
    row = res.classes.set_index("zip").loc["130**"]
    assert row["size"] == 2 and row["distinct"] == 1 and row["value"] == "heart"
    assert res.classes.set_index("zip").loc["148**", "value"] is None


def test_background_knowledge_attack():
    t = anonymous_clinic()
    res = K.background_knowledge_attack(t, ["zip", "age"], "disease", target=3, ruled_out=[])
    assert res.candidates == pytest.approx({"flu": 2 / 3, "cancer": 1 / 3})
    assert res.learned is None and res.class_size == 3 and res.prior == res.candidates
    res = K.background_knowledge_attack(t, ["zip", "age"], "disease", 3, ruled_out=["flu"])
    assert res.learned == "cancer" and res.candidates == {"cancer": 1.0}
    with pytest.raises(ParameterError, match="ruled_out"):
        K.background_knowledge_attack(t, ["zip", "age"], "disease", 3, ["flu", "cancer"])


def test_attacks_on_mondrian_adult():
    t = L.adult_with_quasi_identifiers(4000, rng=2)
    res = K.mondrian_anonymize(t, ["zip", "birth_date", "sex"], 5)
    hom = K.homogeneity_attack(res.table, list(res.quasi_identifiers), "income")
    # 5-anonymous, and yet many classes hold a single income value
    assert hom.l == 1 and hom.fraction_rows_exposed > 0.2
    assert hom.classes["size"].min() >= 5


# ------------------------------------------------------- rules between arguments
# Each argument alone is checked against its declared domain by tests/test_domains.py;
# these rules tie columns to their table, or an argument to the data.
@pytest.mark.parametrize("func,valid", [
    (L.equivalence_classes, dict(table=medical_release(), quasi_identifiers=QI)),
    (L.class_sizes, dict(table=medical_release(), quasi_identifiers=QI)),
    (L.fraction_unique, dict(table=medical_release(), quasi_identifiers=QI)),
    (L.anonymity_level, dict(table=medical_release(), quasi_identifiers=QI)),
    (K.mondrian_anonymize, dict(table=medical_release(), quasi_identifiers=QI, k=2)),
    (K.homogeneity_attack, dict(table=anonymous_clinic(), quasi_identifiers=["zip"],
                                sensitive="disease")),
    (K.l_diversity, dict(table=anonymous_clinic(), quasi_identifiers=["zip"],
                         sensitive="disease")),
    (K.background_knowledge_attack, dict(table=anonymous_clinic(), quasi_identifiers=["zip"],
                                         sensitive="disease", target=0, ruled_out=[])),
    (K.suppress_small_classes, dict(table=medical_release(), quasi_identifiers=QI, k=1)),
])
def test_columns_must_belong_to_the_table(func, valid):
    func(**valid)
    with pytest.raises(ParameterError, match="quasi_identifiers must be columns of table"):
        func(**{**valid, "quasi_identifiers": ["zip", "nope"]})


def test_rules_between_arguments_are_refused_by_name():
    t = medical_release()
    with pytest.raises(ParameterError, match="attributes"):
        L.uniqueness_curve(t, ["sex", "nope"])
    with pytest.raises(ParameterError, match="keep"):
        L.deidentify(t, ["nope"])
    for bad in ({"nope": 1}, {"zip": "year"}, {"birth_date": 5}, {"sex": 1.5}, {"zip": -1}):
        with pytest.raises(ParameterError, match="rules"):
            K.coarsen(t, bad)
    for k in (7, 10**5):
        for f in (K.mondrian_anonymize, K.suppress_small_classes):
            with pytest.raises(ParameterError, match="k"):
                f(t, QI, k)
    clinic = anonymous_clinic()
    for bad in ("zip", "nope"):
        with pytest.raises(ParameterError, match="sensitive"):
            K.homogeneity_attack(clinic, ["zip"], bad)
    with pytest.raises(ParameterError, match="target"):
        K.background_knowledge_attack(clinic, ["zip"], "disease", 5, [])
    lk = dict(release=medical_release(), roster=voter_roster(), quasi_identifiers=QI,
              sensitive="diagnosis")
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        L.linkage_attack(**{**lk, "quasi_identifiers": ["name"]})      # not in the release
    for bad in ("sex", "name"):
        with pytest.raises(ParameterError, match="sensitive"):
            L.linkage_attack(**{**lk, "sensitive": bad})
    # the data: unhashable cells, a column named twice, missing values for Mondrian
    call_rejects(L.class_sizes, dict(table=pd.DataFrame({"a": [[1], [2]]}),
                                     quasi_identifiers="a"), "table")
    twice = pd.DataFrame([[1, 2], [1, 2]], columns=["a", "a"])
    call_rejects(L.class_sizes, dict(table=twice, quasi_identifiers="a"), "table")
    call_rejects(L.linkage_attack, dict(release=medical_release(), roster=twice.rename(
        columns={"a": "zip"}), quasi_identifiers="zip", sensitive="diagnosis"), "roster")
    call_rejects(K.mondrian_anonymize, dict(table=pd.DataFrame({"a": [1.0, np.nan]}),
                                            quasi_identifiers="a", k=1), "table")


def test_sizes_have_upper_bounds():
    big = pd.DataFrame({"a": np.zeros(K.MAX_MONDRIAN_ROWS + 1)})
    with pytest.raises(ParameterError, match="table"):
        K.mondrian_anonymize(big, "a", 2)
    with pytest.raises(ParameterError, match="table"):
        L.class_sizes(pd.DataFrame({"a": np.zeros(L.MAX_ROWS + 1)}), "a")
    wide = pd.DataFrame(np.zeros((2, L.MAX_ATTRIBUTES + 1)))
    wide.columns = [f"c{i}" for i in wide.columns]
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        L.class_sizes(wide, list(wide.columns))
