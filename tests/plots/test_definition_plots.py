"""Tests for dpteach.plots.definition: the figures of notebook 02 (what DP promises).

Each figure's numbers are read from its FigureData and compared with closed forms (the
Laplace distribution, Bayes' rule, the testing region of Kairouz, Oh & Viswanath 2015,
Thm 2.1), and the matplotlib figure draws exactly that data. Bad arguments are refused by
name (the generated tests of tests/test_domains.py cover each declared domain).
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
from scipy import stats

matplotlib.use("Agg")

from dpteach._validation import ParameterError  # noqa: E402
from dpteach.attacks.roc import dp_roc_bound  # noqa: E402
from dpteach.mechanisms.definition import laplace_event_probability  # noqa: E402
from dpteach.plots import definition as fig_def  # noqa: E402


def _line(fig, gid):
    found = [ln for ln in fig.axes[0].lines if ln.get_gid() == gid]
    assert len(found) == 1, f"expected one line with gid {gid!r}, got {len(found)}"
    return np.asarray(found[0].get_xdata(), float), np.asarray(found[0].get_ydata(), float)


# ------------------------------------------------------------------ the event figure
@pytest.mark.parametrize("eps, low, high", [(1.0, 2.0, 5.0), (1.0, 4.5, 8.0), (0.3, -20.0, 3.0),
                                            (2.0, 3.2, 3.7)])
def test_event_probabilities_are_the_laplace_distributions(eps, low, high):
    data = fig_def.event_probabilities_data(eps, low, high)
    for key, count in (("p", 4.0), ("p_prime", 3.0)):
        dist = stats.laplace(loc=count, scale=1 / eps)
        assert data.extra[key] == pytest.approx(dist.cdf(high) - dist.cdf(low), rel=1e-10)
    # the ratio is at most e^ε (up to rounding), and exactly e^ε for events in one tail
    assert data.extra["ratio"] <= data.extra["bound"] * (1 + 1e-12)
    if high <= 3.0 or low >= 4.0:
        assert data.extra["ratio"] == pytest.approx(math.exp(eps), rel=1e-12)
    else:
        assert data.extra["ratio"] < math.exp(eps) * (1 - 1e-6)
    assert f"ε = {eps:g}" in data.title and "P[M(D) ∈ S]" in data.title
    x, y = data.series_by_key("density-d").x, data.series_by_key("density-d").y
    np.testing.assert_allclose(y, stats.laplace.pdf(x, loc=4.0, scale=1 / eps), rtol=1e-12)


def test_event_figure_draws_its_data_and_the_group_bound():
    fig = fig_def.plot_event_probabilities(1.0, 2.0, 5.0)
    data = fig_def.event_probabilities_data(1.0, 2.0, 5.0)
    for key in ("density-d", "density-d-prime"):
        x, y = _line(fig, key)
        np.testing.assert_array_equal(x, data.series_by_key(key).x)
        np.testing.assert_array_equal(y, data.series_by_key(key).y)
    assert " ".join(fig.axes[0].get_title().split()) == " ".join(data.title.split())  # wrapped
    # counts that differ by k: the bound is e^{kε} (group privacy)
    group = fig_def.event_probabilities_data(0.5, -10.0, 0.0, count=4.0, count_prime=0.0)
    assert group.extra["bound"] == pytest.approx(math.exp(2.0))
    assert group.extra["ratio"] == pytest.approx(math.exp(2.0), rel=1e-12)
    assert "e^(4ε)" in group.title
    with pytest.raises(ParameterError, match=r"low must be below high"):
        fig_def.event_probabilities_data(1.0, 5.0, 5.0)


# -------------------------------------------------------------- the posterior figure
def test_posterior_figure_is_bayes_rule_at_ratio_e_to_the_epsilon():
    for eps, prior in ((1.0, 0.5), (0.1, 0.3), (3.0, 0.01)):
        data = fig_def.posterior_bound_data(eps, prior)
        odds = prior / (1 - prior)
        assert data.extra["high"] == pytest.approx(odds * math.e**eps / (1 + odds * math.e**eps))
        assert data.extra["low"] == pytest.approx(odds * math.e**-eps / (1 + odds * math.e**-eps))
        upper, lower = data.series_by_key("upper"), data.series_by_key("lower")
        assert np.all(upper.y >= upper.x - 1e-15) and np.all(lower.y <= lower.x + 1e-15)
        np.testing.assert_allclose(upper.y + lower.y[::-1], 1.0, atol=1e-14)   # mirror images
        assert f"{prior:.0%}" in data.title and f"{1 / eps:.3g}" in data.title
    fig = fig_def.plot_posterior_bound(1.0, 0.5)
    x, y = _line(fig, "upper")
    np.testing.assert_array_equal(y, fig_def.posterior_bound_data(1.0, 0.5).series_by_key(
        "upper").y)


# ---------------------------------------------------------- the testing-region figure
def test_region_is_the_kov_region():
    eps, delta = 1.0, 0.05
    data = fig_def.dp_test_region_data(eps, delta)
    region = data.series_by_key("region")
    x = region.x
    # upper edge: min(1, e^ε x + δ, 1 − e^{−ε}(1 − δ − x)); lower edge: its mirror image
    upper = np.minimum.reduce([np.ones_like(x), math.e**eps * x + delta,
                               1 - math.e**-eps * (1 - delta - x)])
    np.testing.assert_allclose(region.y2, upper, atol=1e-15)
    np.testing.assert_allclose(region.y, 1 - np.interp(1 - x, x, upper), atol=1e-12)
    assert data.extra["excess"] is None
    # the corner where the two lines of the upper edge cross is a grid point
    assert np.any(np.isclose(x, (1 - delta) / (1 + math.e**eps), rtol=0, atol=1e-15))


def test_laplace_threshold_tests_touch_the_region_and_refute_a_smaller_epsilon():
    # counts 3 (D) and 4 (D′), scale 1/ε: the tests "output > t" lie on the upper edge of
    # the ε region (both tails have likelihood ratio e^ε) and outside any smaller ε's
    eps = 1.0
    t = np.linspace(-4, 12, 321)
    fpr = laplace_event_probability(t, np.inf, 3.0, 1.0, eps)
    tpr = laplace_event_probability(t, np.inf, 4.0, 1.0, eps)
    inside = fig_def.dp_test_region_data(eps, 0.0, fpr, tpr, label="threshold tests")
    assert -1e-12 < inside.extra["excess"] <= 1e-12
    assert "stays inside" in inside.title
    outside = fig_def.dp_test_region_data(0.5, 0.0, fpr, tpr)
    assert outside.extra["excess"] == pytest.approx(np.max(tpr - dp_roc_bound(fpr, 0.5)))
    assert outside.extra["excess"] > 0.1 and "not (0.5, 0)-DP" in outside.title
    fig = fig_def.plot_dp_test_region(eps, 0.0, fpr, tpr, label="threshold tests")
    x, y = _line(fig, "roc")
    np.testing.assert_array_equal(x, fpr)
    np.testing.assert_array_equal(y, tpr)


def test_region_refuses_half_a_curve():
    with pytest.raises(ParameterError, match=r"fpr and tpr"):
        fig_def.dp_test_region_data(1.0, 0.0, fpr=[0.0, 1.0])
    with pytest.raises(ParameterError, match=r"fpr and tpr"):
        fig_def.dp_test_region_data(1.0, 0.0, fpr=[0.0, 1.0], tpr=[0.0, 0.5, 1.0])
    with pytest.raises(ParameterError, match=r"\bax\b"):
        fig_def.plot_dp_test_region(1.0, ax="axes")
