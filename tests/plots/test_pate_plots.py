"""The PATE figures (dpteach.plots.pate): their numbers against the math modules.

The vote histogram is the votes; the answer's distribution is
:mod:`dpteach.pate.answers`'s exact one (and P(threshold passes), q̃ those of
:mod:`dpteach.pate.analysis`); the expected ε-cost after k queries is ``pate_expected_cost``
of k copies of the histogram, both ways. Every figure has its series keys and labels, ε/δ in its title, and both
renderers draw it. A hypothesis bad-input test attacks every public function
(``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _props import (
    BAD_CHOICE,
    BAD_POSITIVE,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_NUMERIC,
    WRONG_SHAPE,
    bad_int,
    call_rejects,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach._validation import ParameterError
from dpteach.pate.analysis import (
    DEFAULT_PATE_ORDERS,
    gnmax_log_q,
    gnmax_rdp,
    gnmax_rdp_data_independent,
    pate_expected_cost,
    threshold_log_pr_answered,
)
from dpteach.pate.teachers import MAX_TEACHERS
from dpteach.pate.answers import confident_gnmax_answer_probabilities, gnmax_answer_probabilities
from dpteach.plots import pate as P
from dpteach.plots import pate_runs as RUNS
from dpteach.plots.figure import to_matplotlib, to_vega_lite

VOTES = np.array([200, 30, 20, 0, 0, 0, 0, 0, 0, 0])       # the example histogram
NOISE = dict(threshold=200.0, sigma1=150.0, sigma2=40.0)


def _bars(fig, gid):
    return [p for p in fig.axes[0].patches if p.get_gid() == gid]


# ------------------------------------------------------------------ agreement_votes
@pytest.mark.parametrize("name,expected", [
    ("unanimous", [250] + [0] * 9),
    ("clear winner", [200, 6, 6, 6, 6, 6, 5, 5, 5, 5]),
    ("split", [138, 112] + [0] * 8),             # 0.55 × 250 = 137.5, halves round up
    ("tie", [125, 125] + [0] * 8),
])
def test_presets_build_the_documented_histograms(name, expected):
    votes = P.agreement_votes(250, 10, *P.VOTE_PRESETS[name])
    assert votes.dtype == np.int64 and votes.tolist() == expected


@pytest.mark.parametrize("n", [1, 7, 50, 333, MAX_TEACHERS])
@pytest.mark.parametrize("k", [2, 3, 10, 100])
@pytest.mark.parametrize("rest", P.REST_CHOICES)
def test_agreement_votes_sum_to_the_teachers_with_class_0_a_plurality(n, k, rest):
    for a in (0.5, 0.61, 0.9, 1.0):
        v = P.agreement_votes(n, k, a, rest)
        assert v.sum() == n and v.shape == (k,) and v[0] == v.max()
        assert v[0] == math.floor(a * n + 0.5)
        assert v[1:].max() - v[1:].min() <= (1 if rest == "spread" else n)
        if rest == "runner-up":
            assert np.all(v[2:] == 0)


def test_agreement_votes_refuse_a_class_0_that_is_not_the_plurality():
    with pytest.raises(ParameterError, match=r"agreement.*½.*agreement=0.4"):
        P.agreement_votes(250, 10, 0.4, "runner-up")
    with pytest.raises(ParameterError, match=r"agreement.*1/5"):
        P.agreement_votes(250, 5, 0.1, "spread")
    assert P.agreement_votes(250, 10, 0.1, "spread").tolist() == [25] * 10     # a 10-way tie


def test_agreement_zero_with_one_teacher_is_refused():
    # 0 of 1 votes for class 0 and 1 for class 1: class 0 is not the plurality
    with pytest.raises(ParameterError, match="agreement"):
        P.agreement_votes(1, 2, 0.0, "runner-up")


# ------------------------------------------------------------------ vote histogram
def test_vote_histogram_data_shows_the_votes_and_the_threshold():
    data = P.vote_histogram_data(VOTES, 200)
    assert [s.key for s in data.series] == ["plurality", "votes"]
    top, rest = data.series
    assert top.label == "plurality: class 0" and rest.label == "other classes"
    assert top.x.tolist() == [0] and top.y.tolist() == [200]
    assert rest.x.tolist() == list(range(1, 10)) and rest.y.tolist() == VOTES[1:].tolist()
    (rule,) = data.rules
    assert (rule.key, rule.axis, rule.value, rule.label) == ("threshold", "y", 200.0,
                                                             "threshold T = 200")
    assert data.title.startswith("Votes of 250 teachers on one query (10 classes)")
    assert "class 0: 200 votes (80%), runner-up 30" in data.title
    assert data.y_domain == (0.0, pytest.approx(220.0))
    assert data.extra == {"teachers": 250.0, "plurality": 0, "top": 200.0, "runner_up": 30.0}
    # without a threshold: no rule; the plurality need not be class 0
    data = P.vote_histogram_data([3, 9, 1])
    assert not data.rules and data.extra["plurality"] == 1
    assert data.series_by_key("votes").x.tolist() == [0, 2]


def test_vote_histogram_renderers():
    fig = P.plot_vote_histogram(VOTES, 200)
    assert isinstance(fig, Figure)
    assert [b.get_height() for b in _bars(fig, "votes")] == VOTES[1:].tolist()
    assert [ln.get_gid() for ln in fig.axes[0].lines] == ["threshold"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [str(j) for j in range(10)]
    data = P.vote_histogram_data(VOTES, 200)
    assert data.x_ticks == tuple((float(j), str(j)) for j in range(10)) and data.y_integer
    spec = json.loads(json.dumps(to_vega_lite(data, height=300)))
    assert spec["height"] == 300
    x_axes = [layer["encoding"]["x"]["axis"] for layer in spec["layer"]
              if "x" in layer["encoding"]]
    assert x_axes and all(a["values"] == list(range(10)) for a in x_axes)
    assert spec["title"]["text"] == data.title.split("\n")
    # many classes: a named tick under every ⌈k/20⌉-th class
    many = P.vote_histogram_data(np.arange(100)[::-1])
    assert [v for v, _ in many.x_ticks] == list(range(0, 100, 5))
    assert to_matplotlib(P.vote_histogram_data(VOTES)).axes[0].get_ylabel() == \
        "number of teachers' votes"


# ------------------------------------------------------------ answer distribution
@pytest.mark.parametrize("votes", [VOTES, [125, 125, 0], [5, 4, 3, 2, 1], [0, 0]])
def test_answer_distribution_is_the_exact_one(votes):
    data = P.answer_distribution_data(votes, **NOISE)
    conf, none = confident_gnmax_answer_probabilities(votes, 200, 150, 40)
    gn = gnmax_answer_probabilities(votes, 40)
    k = len(votes)
    assert [s.key for s in data.series] == ["confident", "no-answer", "gnmax"]
    np.testing.assert_array_equal(data.series_by_key("confident").y, conf)
    np.testing.assert_array_equal(data.series_by_key("gnmax").y, gn)
    assert data.series_by_key("no-answer").y.tolist() == [none]
    assert data.series_by_key("no-answer").x.tolist() == [k - 0.2]
    np.testing.assert_allclose(data.series_by_key("confident").x, np.arange(k) - 0.2)
    np.testing.assert_allclose(data.series_by_key("gnmax").x, np.arange(k) + 0.2)
    p = math.exp(threshold_log_pr_answered(votes, 200, 150))
    assert data.extra["p_answer"] == p
    assert none == pytest.approx(1 - p, abs=1e-15)
    assert conf.sum() + none == pytest.approx(1.0, abs=1e-10)       # quadrature ≈ 1e-12
    assert data.extra["q_bound"] == math.exp(gnmax_log_q(votes, 40))
    # the bound q̃ is a bound: it is at least the exact Pr[GNMax ≠ plurality]
    top = data.extra["plurality"]
    assert data.extra["q_bound"] >= (1 - gn[top]) - 1e-10
    assert f"P(threshold passes) = {p:.3g}" in data.title
    assert "σ₁ = 150, σ₂ = 40" in data.series[0].label and "T = 200" in data.series[0].label


def test_answer_distribution_renderers():
    fig = P.plot_answer_distribution(VOTES, **NOISE)
    assert len(_bars(fig, "confident")) == 10 and len(_bars(fig, "no-answer")) == 1
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][-1] == "no answer"
    data = P.answer_distribution_data(VOTES, **NOISE)
    assert data.x_ticks[-1] == (10.0, "no answer")
    spec = json.loads(json.dumps(to_vega_lite(data)))
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["values"] == list(range(11)) and '"no answer"' in axis["labelExpr"]
    assert all("tooltip" in layer["encoding"] for layer in spec["layer"])
    labels = {row["series"] for layer in spec["layer"] for row in layer["data"]["values"]}
    assert labels == {s.label for s in P.answer_distribution_data(VOTES, **NOISE).series}


# ------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("votes", [VOTES, [250] + [0] * 9, [125, 125, 0, 0]])
def test_expected_cost_after_k_queries_is_pate_expected_cost_of_k_copies(votes):
    data = P.pate_privacy_data(votes, **NOISE, delta=1e-5, k_max=2000, mark_k=777)
    ks = data.extra["ks"]
    assert ks[0] == 1 and ks[-1] == 2000 and 777 in ks and np.all(np.diff(ks) > 0)
    for k in (1, 777, 2000, int(ks[len(ks) // 2])):
        j = int(np.searchsorted(ks, k))
        for way in ("data-independent", "data-dependent"):
            ref = pate_expected_cost(np.tile(votes, (k, 1)), sigma2=40, delta=1e-5,
                                     threshold=200, sigma1=150,
                                     data_dependent=(way == "data-dependent")).expected_cost
            assert data.series_by_key(way).y[j] == pytest.approx(ref, rel=1e-9, abs=1e-12)
    one = {w: pate_expected_cost(votes, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
                                 data_dependent=(w == "data-dependent")).expected_cost
           for w in ("data-independent", "data-dependent")}
    assert data.extra["per_query"] == pytest.approx(one, rel=1e-12)
    assert data.extra["at_mark"] == {w: data.series_by_key(w).y[np.searchsorted(ks, 777)]
                                     for w in one}


def test_privacy_data_keys_title_and_properties():
    data = P.pate_privacy_data(VOTES, **NOISE, delta=1e-6, mark_k=1000)
    assert [s.key for s in data.series] == ["data-independent", "data-dependent"]
    assert "not publishable" in data.series_by_key("data-dependent").label
    assert all(s.label.startswith("expected ε-cost") for s in data.series)
    assert "forecast" in data.title and "expected ε-cost" in data.y_title
    assert "δ = 1e-06" in data.title and "T = 200, σ₁ = 150, σ₂ = 40" in data.title
    assert data.log_x and data.log_y and "queries k" in data.x_title and "ε" in data.y_title
    assert [(r.key, r.value) for r in data.rules] == [("mark_k", 1000)]
    di, dd = (data.series_by_key(w).y for w in ("data-independent", "data-dependent"))
    assert np.all(dd <= di * (1 + 1e-12))                  # data-dependent never costs more
    assert np.all(np.diff(di) >= 0) and np.all(np.diff(dd) >= 0)     # more queries, more ε
    assert dd[-1] < 0.6 * di[-1]          # agreement pays off at 10,000 queries (0.54 here)
    # the per-query RDP of GNMax is Thm 6's, charged with P(answered)
    rdp = data.extra["rdp"]
    p = data.extra["p_answer"]
    orders = np.asarray(DEFAULT_PATE_ORDERS)
    thr_di = orders / (2 * 150.0**2)
    np.testing.assert_allclose(rdp["data-independent"],
                               thr_di + p * gnmax_rdp_data_independent(orders, 40), rtol=1e-12)
    assert np.all(rdp["data-dependent"] <= rdp["data-independent"] * (1 + 1e-12))
    assert np.all(rdp["data-dependent"] >= p * gnmax_rdp(orders, VOTES, 40) - 1e-15)


def test_unanimous_votes_cost_far_less_than_a_tie():
    # T = 0, σ₁ = 10: the threshold passes almost surely for 250 teachers, so its
    # data-dependent cost is tiny and GNMax is what differs: nothing is saved on a tie
    at, rdp = {}, {}
    for name in ("unanimous", "tie"):
        v = P.agreement_votes(250, 10, *P.VOTE_PRESETS[name])
        data = P.pate_privacy_data(v, 0.0, 10.0, 40.0, mark_k=1000)
        at[name], rdp[name] = data.extra["at_mark"], data.extra["rdp"]["data-dependent"]
    assert at["unanimous"]["data-dependent"] < 0.1 * at["unanimous"]["data-independent"]
    assert at["tie"]["data-dependent"] > 5 * at["unanimous"]["data-dependent"]
    orders = np.asarray(DEFAULT_PATE_ORDERS)
    np.testing.assert_allclose(gnmax_rdp(orders, [125, 125] + [0] * 8, 40),
                               gnmax_rdp_data_independent(orders, 40), rtol=1e-12)
    assert np.all(rdp["tie"] >= gnmax_rdp_data_independent(orders, 40) * (1 - 1e-12))


def test_privacy_renderers_and_zero_epsilon_is_left_out_of_the_log_axis():
    fig = P.plot_pate_privacy(VOTES, **NOISE, mark_k=100)
    assert isinstance(fig, Figure) and fig.axes[0].get_yscale() == "log"
    assert [ln.get_gid() for ln in fig.axes[0].lines] == ["data-independent", "data-dependent",
                                                          "mark_k"]
    spec = to_vega_lite(P.pate_privacy_data(VOTES, **NOISE, mark_k=100))
    json.dumps(spec)
    # unanimous votes far above T: the data-dependent RDP (about 4e-19 per query) is
    # below δ² = 1e-4 even for 10,000 queries, so ε = 0 exactly (a (0, δ) guarantee)
    data = P.pate_privacy_data([500, 0], 0.0, 10.0, 40.0, delta=0.01, k_max=10_000)
    dd = data.series_by_key("data-dependent").y
    assert np.all(dd == 0.0) and np.all(data.series_by_key("data-independent").y > 0)
    rows = [r for layer in to_vega_lite(data)["layer"] for r in layer["data"]["values"]
            if r.get("series") == data.series_by_key("data-dependent").label]
    assert rows == []
    fig = P.plot_pate_privacy([500, 0], 0.0, 10.0, 40.0, delta=0.01, k_max=10_000)
    assert fig.axes[0].get_ylim()[0] > 0


def test_only_one_histogram_of_few_classes_is_drawn():
    with pytest.raises(ParameterError, match="votes"):
        P.vote_histogram_data(np.ones((2, 3)))
    with pytest.raises(ParameterError, match="votes"):
        P.answer_distribution_data(np.ones(P.MAX_BAR_CLASSES + 1), **NOISE)


# ------------------------------------------------- notebook 12: a run on many queries
RUN = np.array([[250, 0], [230, 20], [150, 100], [125, 125], [240, 10], [200, 50]])
RIGHT = np.array([True, True, False, False, True, True])
ANSWERED = np.array([True, False, True, False, True, False])


def test_teacher_agreement_counts_the_plurality_votes():
    data = RUNS.teacher_agreement_data(RUN, correct=RIGHT, threshold=300, bins=5)
    assert [s.key for s in data.series] == ["queries", "wrong"]
    edges = data.extra["edges"]
    np.testing.assert_allclose(edges, np.linspace(125, 250, 6))
    np.testing.assert_array_equal(data.extra["counts"], np.histogram(RUN.max(1), edges)[0])
    np.testing.assert_array_equal(data.extra["wrong"], np.histogram(RUN.max(1)[~RIGHT], edges)[0])
    assert data.series_by_key("queries").y.sum() == len(RUN)
    assert data.series_by_key("wrong").y.tolist() == [1, 1, 0, 0, 0]      # 125 and 150 votes
    np.testing.assert_allclose(data.series_by_key("wrong").x, 0.5 * (edges[1:] + edges[:-1]))
    assert data.extra["accuracy"] == pytest.approx(4 / 6)
    np.testing.assert_allclose(data.extra["share"], RUN.max(1) / 250)
    (rule,) = data.rules
    assert (rule.key, rule.axis, rule.value) == ("threshold", "x", 300.0)
    assert data.x_domain[0] < 125 and data.x_domain[1] > 300       # T is on the axis
    assert data.title.startswith("Agreement of 250 teachers on 6 queries")
    assert "median plurality: 86% of the votes\nthe plurality is right on 66.7%" in data.title
    # without labels or threshold: one series, no rule, and a histogram of one value still draws
    plain = RUNS.teacher_agreement_data([[3, 1], [3, 0]])
    assert [s.key for s in plain.series] == ["queries"] and not plain.rules
    assert plain.extra["wrong"] is None and plain.extra["accuracy"] is None
    np.testing.assert_allclose(plain.extra["edges"], np.linspace(2.5, 3.5, 26))   # 25 bins
    fig = RUNS.plot_teacher_agreement(RUN, RIGHT, 300, bins=5)
    assert [b.get_height() for b in _bars(fig, "wrong")] == [1, 1, 0, 0, 0]
    assert [ln.get_gid() for ln in fig.axes[0].lines] == ["threshold"]
    json.dumps(to_vega_lite(data))


def test_query_costs_are_thm6_over_the_data_independent_cost():
    lam = 13.5
    data = RUNS.query_costs_data(RUN, 40, lam, answered=ANSWERED, bins=10)
    ratio = gnmax_rdp([lam], RUN, 40)[:, 0] / gnmax_rdp_data_independent([lam], 40)[0]
    np.testing.assert_allclose(data.extra["ratio"], np.minimum(ratio, 1.0), rtol=1e-12)
    assert data.extra["data_independent"] == pytest.approx(lam / 1600, rel=1e-15)
    assert np.all(data.extra["ratio"] <= 1.0)
    assert data.extra["ratio"][3] == pytest.approx(1.0)               # a tie: the full cost
    assert data.extra["ratio"][0] < 1e-2                              # unanimous: almost nothing
    assert [s.key for s in data.series] == ["answered", "not answered"]
    counts = data.extra["counts"]
    assert counts["answered"].sum() == 3 and counts["not answered"].sum() == 3
    assert counts["not answered"][-1] >= 1                            # the tie, in the last bin
    edges = data.extra["edges"]
    assert edges[-1] == 0.0 and edges[0] <= math.log10(data.extra["ratio"].min())
    (rule,) = data.rules
    assert (rule.key, rule.axis, rule.value) == ("data-independent", "x", 0.0)
    assert "λ = 13.5, σ₂ = 40" in data.title and "not publishable" in data.title
    assert "median answered query" in data.title
    # without a mask: one series of every query; with no query answered, no "answered" median
    assert [s.key for s in RUNS.query_costs_data(RUN, 40, lam).series] == ["queries"]
    none = RUNS.query_costs_data(RUN, 40, lam, answered=np.zeros(6, dtype=bool))
    assert "answered" not in none.title.split("\n")[1]
    fig = RUNS.plot_query_costs(RUN, 40, lam, answered=ANSWERED, bins=10)
    assert len(_bars(fig, "answered")) == 10 and len(_bars(fig, "not answered")) == 10
    json.dumps(to_vega_lite(data))


def test_query_costs_count_zero_costs_in_the_first_bin():
    # a vote so lopsided that q̃ underflows to 0: GNMax's answer is fixed and costs exactly 0
    data = RUNS.query_costs_data([[10**6, 0], [125, 125]], 1.0, 2.0, bins=4)
    assert data.extra["ratio"][0] == 0.0
    assert data.extra["counts"]["queries"].tolist() == [1, 0, 0, 1]


def test_accuracy_vs_epsilon_draws_one_sorted_curve_per_learner():
    curves = {"PATE": ([2.0, 0.5, 1.0], [0.83, 0.80, 0.82]), "DP-SGD": ([1.0], [0.84])}
    data = RUNS.accuracy_vs_epsilon_data(curves, baseline=0.841)
    assert [s.key for s in data.series] == ["curve-0", "curve-0-points", "curve-1",
                                            "curve-1-points"]
    line = data.series_by_key("curve-0")
    assert line.label == "PATE" and line.x.tolist() == [0.5, 1.0, 2.0]
    assert line.y.tolist() == [0.80, 0.82, 0.83]
    assert data.series_by_key("curve-0-points").label == ""            # not in the legend
    assert data.series_by_key("curve-0").colour != data.series_by_key("curve-1").colour
    assert data.log_x and "ε" in data.x_title and data.y_title == "test accuracy"
    assert [(r.key, r.value) for r in data.rules] == [("baseline", 0.841)]
    assert not RUNS.accuracy_vs_epsilon_data(curves).rules
    fig = RUNS.plot_accuracy_vs_epsilon(curves, 0.841)
    assert [ln.get_gid() for ln in fig.axes[0].lines] == ["curve-0", "curve-0-points", "curve-1",
                                                          "curve-1-points", "baseline"]
    assert fig.axes[0].get_xscale() == "log"
    json.dumps(to_vega_lite(data))


# ------------------------------------------------------------- bad input (hypothesis)
BAD_VOTES = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[], [5], [-1, 3], [1.5, 2], [np.nan, 1], [[1, 2], [3, 4]], 7,
                     np.ones(P.MAX_BAR_CLASSES + 1), [True, False], [2.0**53, 1]]))
BAD_THRESHOLD = st.one_of(
    st.sampled_from([-1, -1e-300, math.nan, math.inf, -math.inf]),
    st.floats(max_value=-1e-300, allow_nan=False), NOT_A_NUMBER.filter(lambda v: v is not None),
    WRONG_SHAPE)
BAD_OPT_THRESHOLD = BAD_THRESHOLD
BAD_DELTA_POS = st.one_of(st.sampled_from([0, 0.0, 1, 1.5, -1e-9, math.nan, math.inf]),
                          NOT_A_NUMBER, WRONG_SHAPE)


def bad_opt_int(low, high):
    return bad_int(low, high).filter(lambda v: v is not None)


AV = dict(n_teachers=250, n_classes=10, agreement=0.8, rest="spread")
VH = dict(votes=VOTES, threshold=200.0)
AD = dict(votes=VOTES, **NOISE)
PR = dict(votes=VOTES, **NOISE, delta=1e-5, k_max=100, mark_k=10)
CASES = [
    (P.agreement_votes, AV, "n_teachers", bad_int(1, MAX_TEACHERS)),
    (P.agreement_votes, AV, "n_classes", bad_int(2, P.MAX_BAR_CLASSES)),
    (P.agreement_votes, AV, "agreement",
     st.one_of(st.sampled_from([-0.01, 1.01, math.nan, math.inf, 2]), NOT_A_NUMBER,
               WRONG_SHAPE)),
    (P.agreement_votes, AV, "rest", BAD_CHOICE),
    (P.agreement_votes, {**AV, "rest": "runner-up"}, "agreement",
     st.floats(min_value=0.0, max_value=0.49)),
]
for f in (P.vote_histogram_data, P.plot_vote_histogram):
    CASES += [(f, VH, "votes", BAD_VOTES), (f, VH, "threshold", BAD_OPT_THRESHOLD)]
for f in (P.answer_distribution_data, P.plot_answer_distribution, P.pate_privacy_data,
          P.plot_pate_privacy):
    valid = PR if f in (P.pate_privacy_data, P.plot_pate_privacy) else AD
    CASES += [(f, valid, "votes", BAD_VOTES), (f, valid, "threshold", BAD_THRESHOLD),
              (f, valid, "sigma1", BAD_POSITIVE), (f, valid, "sigma2", BAD_POSITIVE)]
for f in (P.pate_privacy_data, P.plot_pate_privacy):
    CASES += [(f, PR, "delta", BAD_DELTA_POS), (f, PR, "k_max", bad_int(2, P.K_MAX_LIMIT)),
              (f, PR, "mark_k", bad_opt_int(1, P.K_MAX_LIMIT))]
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), True, Figure()])
for f, valid in ((P.plot_vote_histogram, VH), (P.plot_answer_distribution, AD),
                 (P.plot_pate_privacy, PR)):
    CASES.append((f, valid, "ax", NOT_AX))
BAD_BATCH = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[], [5, 1], [[5]], [[-1, 3]], [[1.5, 2]], [[np.nan, 1]], 7,
                     np.ones((2, 2, 2)), [[True, False]], [[2.0**53, 1]]]))
BAD_MASK = st.sampled_from([[True], np.ones(6), np.ones(6, dtype=int), "yes", 1, True,
                            np.ones((6, 1), dtype=bool), [True] * 7, object()])
BAD_ORDER = st.one_of(st.sampled_from([1, 1.0, 0.5, -2, math.nan, math.inf, [2.0, 3.0], []]),
                      NOT_A_NUMBER.filter(lambda v: v is not None), WRONG_SHAPE)
GOOD = ([1.0, 2.0], [0.8, 0.9])
BAD_CURVES = st.sampled_from([
    None, [], {}, [GOOD], {f"c{i}": GOOD for i in range(RUNS.MAX_CURVES + 1)}, {1: GOOD}, {"": GOOD},
    {"a": [1.0, 0.8]}, {"a": ([1.0], [0.8], [0.1])}, {"a": ([0.0], [0.8])},
    {"a": ([-1.0], [0.8])}, {"a": ([1.0], [1.5])}, {"a": ([1.0], [-0.1])},
    {"a": ([math.nan], [0.8])}, {"a": ([1.0, 2.0], [0.8])}, {"a": ([], [])},
    {"a": ("x", [0.8])}, {"a": ([1.0], [[0.8]])}, {"a": ([1e300], [0.8])},
    {"a": (np.ones(RUNS.MAX_CURVE_POINTS + 1), np.ones(RUNS.MAX_CURVE_POINTS + 1) / 2)},
    {"a": ([True], [0.8])}])
BAD_BASELINE = st.one_of(st.sampled_from([-0.1, 1.1, math.nan, math.inf]),
                         NOT_A_NUMBER.filter(lambda v: v is not None),
                         WRONG_SHAPE)
TA = dict(votes=RUN, correct=RIGHT, threshold=300.0, bins=5)
QC = dict(votes=RUN, sigma2=40.0, order=13.5, answered=ANSWERED, bins=5)
AE = dict(curves={"a": GOOD}, baseline=0.85)
for f in (RUNS.teacher_agreement_data, RUNS.plot_teacher_agreement):
    CASES += [(f, TA, "votes", BAD_BATCH), (f, TA, "correct", BAD_MASK),
              (f, TA, "threshold", BAD_OPT_THRESHOLD), (f, TA, "bins", bad_int(1, 200))]
for f in (RUNS.query_costs_data, RUNS.plot_query_costs):
    CASES += [(f, QC, "votes", BAD_BATCH), (f, QC, "sigma2", BAD_POSITIVE),
              (f, QC, "order", BAD_ORDER), (f, QC, "answered", BAD_MASK),
              (f, QC, "bins", bad_int(1, 200))]
for f in (RUNS.accuracy_vs_epsilon_data, RUNS.plot_accuracy_vs_epsilon):
    CASES += [(f, AE, "curves", BAD_CURVES), (f, AE, "baseline", BAD_BASELINE)]
for f, valid in ((RUNS.plot_teacher_agreement, TA), (RUNS.plot_query_costs, QC),
                 (RUNS.plot_accuracy_vs_epsilon, AE)):
    CASES.append((f, valid, "ax", NOT_AX))
SLOW = {P.pate_privacy_data, P.plot_pate_privacy, P.plot_answer_distribution,
        P.plot_vote_histogram}


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{c[2]}" for c in CASES])
def test_bad_values_are_refused_by_name(case):
    func, valid, arg, strategy = case

    @settings(max_examples=10 if func in SLOW else 25, deadline=None, database=None)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


@pytest.mark.parametrize("func,valid", sorted({(c[0], id(c[1])): (c[0], c[1])
                                               for c in CASES}.values(),
                                              key=lambda fv: fv[0].__name__),
                         ids=lambda v: getattr(v, "__name__", ""))
def test_valid_baseline_calls_answer(func, valid):
    out = func(**valid)
    assert out is not None


def test_not_positive_sigmas_name_themselves():
    # the two noises are told apart in the messages
    for bad in (0.0, -1.0):
        with pytest.raises(ParameterError, match="sigma1"):
            P.answer_distribution_data(VOTES, 200, bad, 40)
        with pytest.raises(ParameterError, match="sigma2"):
            P.answer_distribution_data(VOTES, 200, 150, bad)
