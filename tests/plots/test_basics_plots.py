"""Tests for dpteach.plots.calibration and dpteach.plots.randomized_response.

Each figure is checked for: it is a Figure, its axes are labelled, its title
names the privacy parameters, the plotted data equal the closed form, and bad
arguments raise a clear error.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from scipy import stats

from dpteach.mechanisms import noise as mech
from dpteach.mechanisms import randomized_response as rr
from dpteach.mechanisms.noise import gaussian_sigma, laplace_scale
from dpteach.mechanisms.randomized_response import rr_std_error
from dpteach.plots import calibration as cal
from dpteach.plots import randomized_response as rrp
from dpteach.plots.figure import MAX_POINTS, FigureData, to_matplotlib, to_vega_lite
from _props import (
    BAD_DELTA,
    BAD_PROBABILITY,
    NOT_A_NUMBER,
    NOT_POSITIVE_FINITE,
    assert_rejects_bad_values,
)


def _line(fig, gid):
    """(x, y) of the series (or reference line) ``gid`` of a FigureData, or of the line
    with that gid on a drawn figure (a vertical rule at v is ([v, v], [0, 1]))."""
    if isinstance(fig, FigureData):
        for rule in fig.rules:
            if rule.key == gid:
                v = np.full(2, rule.value)
                return (v, np.array([0.0, 1.0])) if rule.axis == "x" else (np.array([0.0, 1.0]), v)
        s = fig.series_by_key(gid)
        return s.x, s.y
    ax = fig.axes[0]
    found = [ln for ln in ax.lines if ln.get_gid() == gid]
    assert len(found) == 1, f"expected one line with gid {gid!r}, got {len(found)}"
    return np.asarray(found[0].get_xdata(), float), np.asarray(found[0].get_ydata(), float)


def _check_common(fig, *needles):
    """Axis titles and the needles in the title, of a FigureData or a drawn figure."""
    if isinstance(fig, FigureData):
        x_title, y_title, title = fig.x_title, fig.y_title, fig.title
    else:
        assert isinstance(fig, Figure)
        ax = fig.axes[0]
        x_title, y_title, title = ax.get_xlabel(), ax.get_ylabel(), " ".join(
            ax.get_title().split())                    # a narrow figure wraps a long title
    assert x_title and y_title
    for needle in needles:
        assert needle in title, f"{needle!r} not in title {title!r}"


def _drawn_from(data, fig):
    """``fig`` is ``data`` drawn by matplotlib: its lines are the data's series and rules."""
    lines = {ln.get_gid(): ln for ln in fig.axes[0].lines}
    for s in data.series:
        if s.kind in ("line", "points", "step"):
            np.testing.assert_array_equal(lines[s.key].get_xdata(), s.x)
            np.testing.assert_array_equal(lines[s.key].get_ydata(), s.y)


# ------------------------------------------------------------ neighbouring densities
def test_neighbouring_densities_laplace_matches_closed_form():
    fig = cal.plot_neighbouring_densities(2.0, 0.5, value=3.0)
    _check_common(fig, "ε = 0.5", "Δ = 2")
    b = 2.0 / 0.5
    for gid, centre in (("laplace-D", 3.0), ("laplace-D'", 5.0)):
        x, y = _line(fig, gid)
        np.testing.assert_allclose(y, np.exp(-np.abs(x - centre) / b) / (2 * b), rtol=1e-12)
    # the ratio of the two densities never exceeds e^ε (Dwork & Roth Thm 3.6)
    _, y0 = _line(fig, "laplace-D")
    _, y1 = _line(fig, "laplace-D'")
    assert np.max(np.abs(np.log(y0 / y1))) <= 0.5 + 1e-12
    assert any("b = 4" in t.get_text() for t in fig.axes[0].get_legend().get_texts())


def test_neighbouring_densities_gaussian_and_both():
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    fig = cal.plot_neighbouring_densities(1.0, 1.0, 1e-5, mechanism="both")
    _check_common(fig, "ε = 1", "δ = 1e-05")
    for gid, centre in (("gaussian-D", 0.0), ("gaussian-D'", 1.0)):
        x, y = _line(fig, gid)
        np.testing.assert_allclose(y, stats.norm.pdf(x, centre, sigma), rtol=1e-12)
    _line(fig, "laplace-D")
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    assert f"σ = {sigma:.3g}" in legend and "b = 1" in legend


def test_neighbouring_densities_classic_sigma_and_given_axes():
    fig0 = Figure()
    ax = fig0.add_subplot()
    fig = cal.plot_neighbouring_densities(1.0, 0.5, 1e-5, mechanism="gaussian",
                                          method="classic", ax=ax)
    assert fig is fig0
    x, y = _line(fig, "gaussian-D")
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    np.testing.assert_allclose(y, stats.norm.pdf(x, 0, sigma), rtol=1e-12)


def test_neighbouring_densities_bad_args():
    good = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5, mechanism="gaussian")
    assert_rejects_bad_values(cal.plot_neighbouring_densities, good, "epsilon",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(cal.plot_neighbouring_densities, good, "sensitivity",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(cal.plot_neighbouring_densities, good, "delta", BAD_DELTA)
    assert_rejects_bad_values(cal.plot_neighbouring_densities, good, "epsilon", NOT_A_NUMBER)
    with pytest.raises(ValueError, match="delta"):
        cal.plot_neighbouring_densities(1.0, 1.0, mechanism="gaussian")      # δ missing
    with pytest.raises(ValueError, match="delta"):
        cal.plot_neighbouring_densities(1.0, 1.0, 0.0, mechanism="both")     # δ = 0
    with pytest.raises(ValueError, match="mechanism"):
        cal.plot_neighbouring_densities(1.0, 1.0, mechanism="exponential")
    with pytest.raises(ValueError, match="epsilon"):                         # classic needs ε < 1
        cal.plot_neighbouring_densities(1.0, 2.0, 1e-5, mechanism="gaussian", method="classic")
    with pytest.raises(ValueError, match="value"):
        cal.plot_neighbouring_densities(1.0, 1.0, value=math.nan)


# ------------------------------------------------------------------- privacy loss
def test_privacy_loss_laplace_bounded_and_exact():
    fig = cal.plot_privacy_loss(1.0, 0.7)
    _check_common(fig, "ε = 0.7")
    x, loss = _line(fig, "loss")
    b = 1 / 0.7
    expected = np.log(stats.laplace.pdf(x, 0, b) / stats.laplace.pdf(x, 1, b))
    np.testing.assert_allclose(loss, expected, atol=1e-12)
    assert np.max(np.abs(loss)) <= 0.7 + 1e-12
    assert np.isclose(loss.max(), 0.7) and np.isclose(loss.min(), -0.7)   # the bound is attained


def test_privacy_loss_gaussian_unbounded_with_shading():
    fig = cal.plot_privacy_loss(1.0, 1.0, 1e-5, mechanism="gaussian")
    _check_common(fig, "ε = 1", "δ = 1e-05")
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    x, loss = _line(fig, "loss")
    expected = stats.norm.logpdf(x, 0, sigma) - stats.norm.logpdf(x, 1, sigma)
    np.testing.assert_allclose(loss, expected, atol=1e-9)
    assert np.max(np.abs(loss)) > 1.0                   # exceeds ε somewhere in view
    shaded = [p for p in fig.axes[0].patches if p.get_gid().startswith("loss-exceeds")]
    assert len(shaded) == 2
    # the printed probability P_D[|L| > ε] with L ~ N(μ, 2μ), μ = Δ²/(2σ²)
    mu = 1 / (2 * sigma ** 2)
    rng = np.random.default_rng(0)
    y = rng.normal(0, sigma, 400_000)
    lam = mech.gaussian_privacy_loss(y, 1.0, sigma)
    assert np.isclose(lam.mean(), mu, atol=5 * math.sqrt(2 * mu / y.size))
    p_formula = stats.norm.sf((1 - mu) / math.sqrt(2 * mu)) + stats.norm.cdf((-1 - mu) / math.sqrt(2 * mu))
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    assert f"{p_formula:.2g}" in legend


def test_privacy_loss_bad_args():
    good = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5, mechanism="gaussian")
    assert_rejects_bad_values(cal.plot_privacy_loss, good, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(cal.plot_privacy_loss, good, "delta", BAD_DELTA)
    with pytest.raises(ValueError, match="mechanism"):
        cal.plot_privacy_loss(1.0, 1.0, mechanism="both")
    with pytest.raises(ValueError, match="delta"):
        cal.plot_privacy_loss(1.0, 1.0, mechanism="gaussian")


# ------------------------------------------------------------- σ and error vs ε
def test_sigma_comparison_classic_only_below_one():
    eps = np.array([0.1, 0.5, 0.9, 1.0, 2.0, 5.0])
    fig = cal.plot_sigma_comparison(1.0, 1e-5, epsilons=eps)
    _check_common(fig, "δ = 1e-05")
    assert "ε" in fig.axes[0].get_xlabel()
    xc, yc = _line(fig, "classic")
    np.testing.assert_array_equal(xc, [0.1, 0.5, 0.9])
    np.testing.assert_allclose(yc, np.sqrt(2 * np.log(1.25e5)) / xc, rtol=1e-12)
    xa, ya = _line(fig, "analytic")
    np.testing.assert_array_equal(xa, eps)
    assert np.all(ya[:3] <= yc)                         # analytic never exceeds classic
    assert fig.axes[0].get_xscale() == "log"


def test_error_vs_epsilon_closed_form():
    fig = cal.plot_error_vs_epsilon(3.0, 1e-6)
    _check_common(fig, "δ = 1e-06", "Δ = 3")
    x, lap = _line(fig, "laplace")
    np.testing.assert_allclose(lap, 3.0 / x, rtol=1e-12)
    x, gau = _line(fig, "gaussian")
    for e, g in zip(x[::20], gau[::20]):
        assert math.isclose(g, gaussian_sigma(3.0, e, 1e-6) * math.sqrt(2 / math.pi), rel_tol=1e-12)
    # the expected |N(0, σ²)| is σ√(2/π): check by quadrature at one point
    s = gaussian_sigma(3.0, 1.0, 1e-6)
    from scipy import integrate
    val, _ = integrate.quad(lambda z: abs(z) * stats.norm.pdf(z, 0, s), -np.inf, np.inf)
    assert math.isclose(val, s * math.sqrt(2 / math.pi), rel_tol=1e-8)


def test_sigma_and_error_bad_args():
    for func in (cal.plot_sigma_comparison, cal.plot_error_vs_epsilon):
        good = dict(sensitivity=1.0, delta=1e-5)
        assert_rejects_bad_values(func, good, "delta", BAD_DELTA)
        assert_rejects_bad_values(func, good, "sensitivity", NOT_POSITIVE_FINITE)
        with pytest.raises(ValueError, match="delta"):
            func(1.0, 0.0)
        with pytest.raises(ValueError, match="epsilons"):
            func(1.0, 1e-5, epsilons=[0.5, -1.0])
        with pytest.raises(ValueError, match="epsilons"):
            func(1.0, 1e-5, epsilons=[0.5, np.inf])
    with pytest.raises(ValueError, match="epsilon"):
        cal.plot_error_vs_epsilon(1.0, 1e-5, epsilons=[0.5, 2.0], method="classic")


def test_dimension_crossover():
    fig = cal.dimension_crossover_data(1.0, 1e-5, max_dimension=1000)
    _drawn_from(fig, cal.plot_dimension_crossover(1.0, 1e-5, max_dimension=1000))
    _check_common(fig)
    assert "ε = 1" in fig.title
    d, lap = _line(fig, "laplace")
    np.testing.assert_allclose(lap, d, rtol=1e-12)
    d, gau = _line(fig, "gaussian")
    s1 = gaussian_sigma(1.0, 1.0, 1e-5)
    # σ scales linearly with the ℓ2 sensitivity √d
    for k in (4, 100, 900):
        assert math.isclose(gaussian_sigma(math.sqrt(k), 1.0, 1e-5), math.sqrt(k) * s1, rel_tol=1e-9)
    np.testing.assert_allclose(gau, np.sqrt(d) * s1 * math.sqrt(2 / math.pi), rtol=1e-12)
    xs, _ = _line(fig, "crossover")
    d_star = xs[0]
    assert d_star == fig.extra["d_star"] and fig.x_integer
    assert math.isclose(d_star / 1.0, math.sqrt(d_star) * s1 * math.sqrt(2 / math.pi), rel_tol=1e-9)
    assert np.all((lap > gau) == (d > d_star))
    with pytest.raises(ValueError, match="max_dimension"):
        cal.plot_dimension_crossover(1.0, 1e-5, max_dimension=1)
    assert_rejects_bad_values(cal.plot_dimension_crossover, dict(epsilon=1.0, delta=1e-5),
                              "epsilon", NOT_POSITIVE_FINITE)


# ---------------------------------------------------------- randomized response
def test_simulated_estimates_unbiased_with_rr_std_error():
    # mean of T estimates has sd = se/√T: allow 5 of those. The sample sd of T
    # roughly normal values has relative sd ≈ 1/√(2T): allow 5 of those.
    n, rate, trials = 500, 0.3, 4000
    se = rr_std_error(rate, n, gamma=0.25)
    for sim in ("reports", "binomial"):
        est = rr.simulate_rr_estimates(rate, n, gamma=0.25, n_trials=trials, rng=11,
                                        simulation=sim)
        assert est.shape == (trials,)
        assert abs(est.mean() - rate) < 5 * se / math.sqrt(trials)
        assert abs(est.std(ddof=1) / se - 1) < 5 / math.sqrt(2 * trials)


def test_simulated_estimates_lie_on_estimator_lattice():
    # every estimate must equal (k/n − (1−p))/(2p−1) for an integer count k
    n = 40
    p = math.exp(1.0) / (1 + math.exp(1.0))
    est = rr.simulate_rr_estimates(0.5, n, epsilon=1.0, n_trials=200, rng=3)
    k = (est * (2 * p - 1) + (1 - p)) * n
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)


def test_plot_rr_estimator_contents():
    fig = rrp.plot_rr_estimator(0.3, 1000, gamma=0.25, n_trials=500, rng=1)
    _check_common(fig, "γ = 0.25", "ε = 1.1", "n = 1000")
    x, y = _line(fig, "normal")
    se = rr_std_error(0.3, 1000, gamma=0.25)
    np.testing.assert_allclose(y, stats.norm.pdf(x, 0.3, se), rtol=1e-12)
    xt, _ = _line(fig, "true-rate")
    assert np.all(xt == 0.3)
    bars = [p for p in fig.axes[0].patches if p.get_gid() == "estimates"]
    area = sum(b.get_height() * b.get_width() for b in bars)
    assert math.isclose(area, 1.0, rel_tol=1e-9)         # density histogram of all trials
    # bins hold whole numbers of attainable estimates (lattice step 1/(n·2γ)) and their
    # edges fall half-way between attainable values, so no bin is aliased
    step = 1 / (1000 * 0.5)
    origin = -0.25 / 0.5
    widths = np.array([b.get_width() for b in bars]) / step
    np.testing.assert_allclose(widths, np.round(widths), atol=1e-6)
    assert 20 <= len(bars) <= 60
    left = (np.array([b.get_x() for b in bars]) - origin) / step
    np.testing.assert_allclose(left - np.floor(left), 0.5, atol=1e-6)
    # extreme ε: every report truthful and nobody has the bit, no spread, no crash
    fig3 = rrp.plot_rr_estimator(0.0, 50, epsilon=60.0, n_trials=20, rng=0)
    assert isinstance(fig3, Figure)
    fig2 = rrp.plot_rr_estimator(0.3, 1000, epsilon=2.0, n_trials=100, rng=1)
    assert "ε = 2" in fig2.axes[0].get_title()


def test_rr_plots_bad_args():
    good = dict(true_rate=0.3, n=100, gamma=0.25, n_trials=50, rng=0)
    assert_rejects_bad_values(rrp.plot_rr_estimator, good, "true_rate", BAD_PROBABILITY)
    with pytest.raises(ValueError, match="gamma"):
        rrp.plot_rr_estimator(0.3, 100, n_trials=50)                      # neither given
    with pytest.raises(ValueError, match="gamma"):
        rrp.plot_rr_estimator(0.3, 100, gamma=0.25, epsilon=1.0, n_trials=50)
    with pytest.raises(ValueError, match="gamma"):
        rrp.plot_rr_estimator(0.3, 100, gamma=0.5, n_trials=50)
    with pytest.raises(ValueError, match="n"):
        rrp.plot_rr_estimator(0.3, 0, gamma=0.25, n_trials=50)
    with pytest.raises(TypeError, match="n"):
        rrp.plot_rr_estimator(0.3, 10.5, gamma=0.25, n_trials=50)
    with pytest.raises(ValueError, match="trials"):
        rrp.plot_rr_estimator(0.3, 100, gamma=0.25, n_trials=1)
    with pytest.raises(ValueError, match="simulation"):
        rrp.plot_rr_estimator(0.3, 100, gamma=0.25, n_trials=50, simulation="exact")
    with pytest.raises(TypeError, match="rng"):
        rrp.plot_rr_estimator(0.3, 100, gamma=0.25, n_trials=50, rng="seed")
    assert_rejects_bad_values(rrp.plot_rr_estimator,
                              dict(true_rate=0.3, n=100, epsilon=1.0, n_trials=50, rng=0),
                              "epsilon", NOT_POSITIVE_FINITE)


def test_rr_std_error_plot_and_probabilities():
    fig = rrp.rr_std_error_data(gammas=(0.1, 0.25), rate=0.4, n_values=[10, 100, 1000])
    _drawn_from(fig, rrp.plot_rr_std_error(gammas=(0.1, 0.25), rate=0.4,
                                           n_values=[10, 100, 1000]))
    _check_common(fig, "π = 0.4")
    assert fig.legend_title == "truth with probability ½ + γ"
    x, y = _line(fig, "gamma=0.25")
    np.testing.assert_allclose(y, [rr_std_error(0.4, int(k), gamma=0.25) for k in x])
    with pytest.raises(ValueError, match="gamma"):
        rrp.plot_rr_std_error(gammas=(0.1, 0.6))
    with pytest.raises(ValueError, match="n_values"):
        rrp.plot_rr_std_error(n_values=[10, 0])

    fig = rrp.plot_rr_probabilities(gamma=0.25)
    _check_common(fig, "γ = 0.25", "ε = 1.1")
    heights = {g: [p.get_height() for p in fig.axes[0].patches if p.get_gid() == g]
               for g in ("true=0", "true=1")}
    np.testing.assert_allclose(heights["true=0"], [0.75, 0.25])
    np.testing.assert_allclose(heights["true=1"], [0.25, 0.75])
    ratios = np.array(heights["true=1"]) / np.array(heights["true=0"])
    assert math.isclose(max(ratios.max(), 1 / ratios.min()), 3.0)        # e^{ln 3}


def test_local_vs_central_closed_forms_and_simulation():
    eps = 1.0
    fig = rrp.local_vs_central_data(eps, n_values=[100, 1000, 10000])
    _drawn_from(fig, rrp.plot_local_vs_central(eps, n_values=[100, 1000, 10000]))
    _check_common(fig, "ε = 1")
    x, loc = _line(fig, "local")
    np.testing.assert_allclose(loc, math.exp(eps / 2) / ((math.exp(eps) - 1) * np.sqrt(x)))
    x, cen = _line(fig, "central")
    np.testing.assert_allclose(cen, math.sqrt(2) / (eps * x))
    # simulated check of the local formula on a fixed dataset: the sample sd of
    # T estimates has relative sd ≈ 1/√(2T) (π̂ is close to normal); allow 5 of them
    from dpteach.mechanisms.randomized_response import randomized_response, rr_estimate
    rng = np.random.default_rng(5)
    bits = (np.arange(400) < 120).astype(int)                  # fixed data, rate 0.3
    T = 3000
    est = np.array([rr_estimate(randomized_response(bits, epsilon=eps, rng=rng),
                                epsilon=eps).estimate for _ in range(T)])
    assert abs(est.std(ddof=1) / rr.rr_local_std(400, eps) - 1) < 5 / math.sqrt(2 * T)
    assert abs(est.mean() - 0.3) < 5 * rr.rr_local_std(400, eps) / math.sqrt(T)
    with pytest.raises(ValueError, match="n"):
        rr.rr_local_std(0, 1.0)
    with pytest.raises(ValueError, match="n_values"):
        rrp.plot_local_vs_central(1.0, n_values=[1.5, 3])
    assert_rejects_bad_values(rrp.plot_local_vs_central, dict(epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)


# ----------------------------------------------- data functions of the app's charts
# One data function per figure (dpteach.plots.figure.FigureData), drawn by matplotlib in
# the notebooks (the plot_* functions above) and by the browser (to_vega_lite) in the app.
def _both_renderers(data):
    """Draw with both renderers; return the matplotlib gids and the Vega-Lite spec."""
    fig = to_matplotlib(data)
    spec = json.loads(json.dumps(to_vega_lite(data)))           # as the browser gets it
    title = spec["title"]["text"]                                  # a string, or its lines
    assert ("\n".join(title) if isinstance(title, list) else title) == data.title
    gids = {ln.get_gid() for ln in fig.axes[0].lines}
    return gids, spec


def _keys(data):
    return [s.key for s in data.series], [r.key for r in data.rules]


def test_neighbouring_densities_data_numbers_keys_and_title():
    data = cal.neighbouring_densities_data(2.0, 0.5, value=3.0)
    assert _keys(data) == (["laplace-D", "laplace-D'"], ["answer-D", "answer-D'"])
    assert "ε = 0.5" in data.title and "Δ = 2" in data.title and "δ" not in data.title
    b = laplace_scale(2.0, 0.5)
    for key, centre in (("laplace-D", 3.0), ("laplace-D'", 5.0)):
        s = data.series_by_key(key)
        np.testing.assert_allclose(s.y, stats.laplace.pdf(s.x, centre, b), rtol=1e-12)
        assert s.y.max() == pytest.approx(1 / (2 * b), rel=1e-12)    # the cusp is a point
        assert f"b = {b:.3g}" in s.label
        assert s.x.size <= MAX_POINTS                                 # not thinned
    assert data.series_by_key("laplace-D'").dash == "dashed"
    assert [r.value for r in data.rules] == [3.0, 5.0]
    assert data.extra["peak"] == pytest.approx(1 / (2 * b))
    gids, spec = _both_renderers(data)
    assert {"laplace-D", "laplace-D'", "answer-D", "answer-D'"} <= gids

    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    data = cal.neighbouring_densities_data(1.0, 1.0, 1e-5, mechanism="both")
    assert "ε = 1, δ = 1e-05" in data.title and "analytic σ" in data.title
    s = data.series_by_key("gaussian-D'")
    np.testing.assert_allclose(s.y, stats.norm.pdf(s.x, 1.0, sigma), rtol=1e-12)
    assert f"σ = {sigma:.3g}" in s.label
    gids, spec = _both_renderers(data)
    legend = spec["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert legend == [s.label for s in data.series]
    with pytest.raises(ValueError, match="delta"):
        cal.neighbouring_densities_data(1.0, 1.0, 0.0, mechanism="gaussian")


def test_privacy_loss_data_laplace_and_gaussian():
    data = cal.privacy_loss_data(1.0, 0.7)
    assert _keys(data) == (["loss"], ["plus-epsilon", "minus-epsilon", "zero"])
    loss = data.series_by_key("loss")
    np.testing.assert_allclose(loss.y, mech.laplace_privacy_loss(loss.x, 1.0, 0.7), atol=1e-12)
    assert loss.y.max() == pytest.approx(0.7) and loss.y.min() == pytest.approx(-0.7)
    assert [r.value for r in data.rules] == [0.7, -0.7, 0.0]
    assert data.y_domain == pytest.approx((-0.77, 0.77)) and "ε = 0.7" in data.title
    _both_renderers(data)

    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    data = cal.privacy_loss_data(1.0, 1.0, 1e-5, mechanism="gaussian")
    assert "ε = 1, δ = 1e-05" in data.title
    assert _keys(data)[0] == ["loss"]
    assert [sp.key for sp in data.spans] == ["loss-exceeds-left", "loss-exceeds-right"]
    loss = data.series_by_key("loss")
    np.testing.assert_allclose(loss.y, mech.gaussian_privacy_loss(loss.x, 1.0, sigma),
                               atol=1e-9)
    # |loss| > ε exactly outside Δ/2 ± εσ²/Δ: the spans end there, over the full height
    cut = sigma ** 2
    left, right = data.spans
    assert left.high == pytest.approx(0.5 - cut) and right.low == pytest.approx(0.5 + cut)
    assert left.low == loss.x[0] and right.high == loss.x[-1]
    assert left.axis == right.axis == "x"
    mu = 1 / (2 * sigma ** 2)
    p = stats.norm.sf((1 - mu) / math.sqrt(2 * mu)) + stats.norm.cdf((-1 - mu) / math.sqrt(2 * mu))
    assert data.extra["p_exceeds"] == pytest.approx(p, rel=1e-9)
    assert f"{p:.2g}" in left.label and right.label == ""
    gids, spec = _both_renderers(data)
    assert "loss" in gids
    assert [layer["mark"]["type"] for layer in spec["layer"]][:3] == ["rect", "rect", "line"]
    assert "y" not in spec["layer"][0]["encoding"]                # a span: the full height


def test_sigma_and_error_data_against_the_mechanisms():
    eps = np.array([2.0, 0.1, 0.5, 0.9, 1.0, 5.0])
    data = cal.sigma_comparison_data(1.0, 1e-5, epsilons=eps)
    assert data.log_x and data.log_y and "δ = 1e-05" in data.title and "Δ = 1" in data.title
    classic, analytic = data.series_by_key("classic"), data.series_by_key("analytic")
    np.testing.assert_array_equal(classic.x, [0.1, 0.5, 0.9])          # only ε < 1
    np.testing.assert_array_equal(analytic.x, np.sort(eps))
    np.testing.assert_allclose(classic.y, [gaussian_sigma(1.0, e, 1e-5, method="classic")
                                           for e in classic.x], rtol=1e-12)
    np.testing.assert_allclose(analytic.y, [gaussian_sigma(1.0, e, 1e-5) for e in analytic.x],
                               rtol=1e-12)
    assert [r.value for r in data.rules] == [1.0]
    _both_renderers(data)
    above_one = cal.sigma_comparison_data(1.0, 1e-5, epsilons=[1.0, 2.0])
    assert _keys(above_one) == (["analytic"], [])                     # no classic, no ε = 1 mark

    data = cal.error_vs_epsilon_data(3.0, 1e-6)
    assert "δ = 1e-06" in data.title and "Δ = 3" in data.title
    lap, gau = data.series_by_key("laplace"), data.series_by_key("gaussian")
    np.testing.assert_allclose(lap.y, 3.0 / lap.x, rtol=1e-12)
    for e, g in zip(gau.x[::20], gau.y[::20]):
        assert g == pytest.approx(gaussian_sigma(3.0, e, 1e-6) * math.sqrt(2 / math.pi),
                                  rel=1e-12)
    gids, _ = _both_renderers(data)
    assert {"laplace", "gaussian"} <= gids


def test_calibration_data_functions_refuse_what_the_plots_refuse():
    good = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5, mechanism="gaussian")
    for func in (cal.neighbouring_densities_data, cal.privacy_loss_data):
        assert_rejects_bad_values(func, good, "epsilon", NOT_POSITIVE_FINITE)
        assert_rejects_bad_values(func, good, "delta", BAD_DELTA)
    for func in (cal.sigma_comparison_data, cal.error_vs_epsilon_data):
        assert_rejects_bad_values(func, dict(sensitivity=1.0, delta=1e-5), "sensitivity",
                                  NOT_POSITIVE_FINITE)
        with pytest.raises(ValueError, match="epsilons"):
            func(1.0, 1e-5, epsilons=[0.5, -1.0])


def test_rr_probabilities_data_and_its_browser_chart():
    data = rrp.rr_probabilities_data(gamma=0.25)
    assert "γ = 0.25" in data.title and "ε = 1.1" in data.title and "= 3 =" in data.title
    assert _keys(data) == (["true=0", "true=1"], [])
    no, yes = data.series_by_key("true=0"), data.series_by_key("true=1")
    np.testing.assert_allclose(no.y, [0.75, 0.25])
    np.testing.assert_allclose(yes.y, [0.25, 0.75])
    np.testing.assert_allclose(no.x, [-0.2, 0.8])
    np.testing.assert_allclose(rrp.rr_probabilities_data(epsilon=math.log(3)).series[0].y, no.y)
    # the reports name the two groups of bars; each bar's probability is written above it
    assert data.x_ticks == ((0.0, rrp.REPORTS[0]), (1.0, rrp.REPORTS[1]))
    assert [(t.x, t.y, t.text) for t in data.texts] == [
        (-0.2, 0.75, "0.750"), (0.8, 0.25, "0.250"), (0.2, 0.25, "0.250"), (1.2, 0.75, "0.750")]
    fig = to_matplotlib(data)
    ax = fig.axes[0]
    assert len([p for p in ax.patches if p.get_gid() == "true=1"]) == 2
    assert [t.get_text() for t in ax.texts] == ["0.750", "0.250", "0.250", "0.750"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(rrp.REPORTS)
    spec = json.loads(json.dumps(to_vega_lite(data)))
    assert spec["title"]["text"] == data.title.split("\n")
    bars = [layer for layer in spec["layer"] if layer["mark"]["type"] == "bar"]
    assert len(bars) == 2 and all(b["encoding"]["y2"] == {"datum": 0} for b in bars)
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["values"] == [0, 1]
    assert all(r in axis["labelExpr"] for r in rrp.REPORTS)
    text = spec["layer"][-1]
    assert text["mark"]["type"] == "text"
    assert [row["text"] for row in text["data"]["values"]] == ["0.750", "0.250", "0.250", "0.750"]
    with pytest.raises(ValueError, match="gamma"):
        rrp.rr_probabilities_data(gamma=0.5)
    with pytest.raises(ValueError, match="height"):
        to_vega_lite(data, height=10)


def test_rr_estimator_data_histogram_rules_and_title():
    n, rate, trials = 1000, 0.3, 2000
    se = rr_std_error(rate, n, gamma=0.25)
    data = rrp.rr_estimator_data(rate, n, gamma=0.25, n_trials=trials, rng=1)
    assert "γ = 0.25 (ε = 1.1), n = 1000" in data.title and f"{trials} simulated" in data.title
    assert _keys(data) == (["estimates", "normal"], ["true-rate", "ci-low", "ci-high"])
    bars = data.series_by_key("estimates")
    assert bars.kind == "bars"
    assert math.isclose(float(np.sum(bars.y) * bars.width), 1.0, rel_tol=1e-9)   # density
    step = 1 / (n * 0.5)                                      # lattice step 1/(n·2γ)
    assert bars.width / step == pytest.approx(round(bars.width / step))
    left = (bars.x - bars.width / 2 + 0.5) / step             # origin −(½ − γ)/(2γ) = −½
    np.testing.assert_allclose(left - np.floor(left), 0.5, atol=1e-6)
    normal = data.series_by_key("normal")
    np.testing.assert_allclose(normal.y, stats.norm.pdf(normal.x, rate, se), rtol=1e-12)
    rules = {r.key: r.value for r in data.rules}
    assert rules["true-rate"] == rate
    assert rules["ci-low"] == pytest.approx(rate - 1.96 * se)
    assert rules["ci-high"] == pytest.approx(rate + 1.96 * se)
    assert data.extra["std_error"] == se
    assert abs(data.extra["mean"] - rate) < 5 * se / math.sqrt(trials)
    # the same seed gives the same picture (the page shows one histogram per setting)
    assert np.array_equal(rrp.rr_estimator_data(rate, n, gamma=0.25, n_trials=trials,
                                                rng=1).series[0].y, bars.y)
    gids, spec = _both_renderers(data)
    assert {"normal", "true-rate", "ci-low", "ci-high"} <= gids
    assert spec["layer"][0]["mark"]["type"] == "bar"


def test_rr_estimator_data_binomial_simulation_as_the_app_uses_it():
    # the app draws the counts of "yes" reports as Binomial(n, λ): the same distribution as
    # simulating every report; mean within 5 SE/√T, sample sd within 5/√(2T) relative
    n, rate, trials = 1000, 0.3, 2000
    se = rr_std_error(rate, n, epsilon=1.0)
    for simulation in ("binomial", "reports"):
        data = rrp.rr_estimator_data(rate, n, epsilon=1.0, n_trials=trials, rng=3,
                                     simulation=simulation)
        assert "ε = 1" in data.title
        bars = data.series_by_key("estimates")
        mean = float(np.sum(bars.x * bars.y) * bars.width)
        sd = math.sqrt(float(np.sum((bars.x - mean) ** 2 * bars.y) * bars.width))
        assert abs(data.extra["mean"] - rate) < 5 * se / math.sqrt(trials)
        # binned moments: the bin width (a few lattice steps) adds at most width²/12
        assert abs(sd / se - 1) < 5 / math.sqrt(2 * trials) + bars.width ** 2 / (12 * se ** 2)
    with pytest.raises(ValueError, match="simulation"):
        rrp.rr_estimator_data(rate, n, epsilon=1.0, n_trials=50, simulation="exact")
    assert_rejects_bad_values(rrp.rr_estimator_data,
                              dict(true_rate=0.3, n=100, gamma=0.25, n_trials=50, rng=0),
                              "true_rate", BAD_PROBABILITY)


# ------------------------------------------------------------------ attack plots
def test_plot_neighbour_differences():
    from dpteach.attacks.differencing import count_at_least
    from dpteach.plots import attacks as atp

    def heights(fig):
        """The bars' heights in the order of the people (bits 1 and 0 are two series)."""
        bars = [p for p in fig.axes[0].patches if p.get_gid().startswith("difference")]
        bars.sort(key=lambda p: p.get_x())
        return [p.get_height() for p in bars]

    db = np.array([1, 0, 1, 1, 0, 0, 1, 0, 0, 0])
    fig = atp.plot_neighbour_differences("mean", db)
    _check_common(fig, "mean", "0.0667")             # max(|1 − m|, m)/(n − 1) = 0.6/9
    np.testing.assert_allclose(heights(fig), (db - 0.4) / 9)
    data = atp.neighbour_differences_data("mean", db)
    ones = data.series_by_key("difference-bit-1")
    np.testing.assert_array_equal(ones.x, np.flatnonzero(db == 1))
    np.testing.assert_allclose(ones.y, 0.6 / 9)
    assert data.extra["sensitivity"] == pytest.approx(0.6 / 9)
    fig = atp.plot_neighbour_differences(count_at_least(4), db)
    assert "count at least 4" in fig.axes[0].get_title()    # the function's name, in words
    np.testing.assert_array_equal(heights(fig), db)
    with pytest.raises(ValueError, match="db"):
        atp.plot_neighbour_differences("sum", [0, np.nan, 1])
    with pytest.raises(ValueError, match="scalar"):
        atp.plot_neighbour_differences(lambda x: np.bincount(x, minlength=2), db)
    fig = atp.plot_neighbour_differences("sum", [0.5, 3.0, 2.0])       # real values allowed
    np.testing.assert_allclose(heights(fig), [0.5, 3.0, 2.0])
    nobody = atp.neighbour_differences_data("mean", [1, 1, 1])           # sensitivity 0
    assert [t.text for t in nobody.texts] == ["no single person changes the answer"]
    with pytest.raises(TypeError, match="name"):
        atp.plot_neighbour_differences("sum", db, name=3)


def test_plot_noisy_difference_and_success():
    from dpteach.attacks.differencing import dp_success_bound, noisy_attack_success
    from dpteach.plots import attacks as atp

    fig = atp.noisy_difference_data(0.8)
    _drawn_from(fig, atp.plot_noisy_difference(0.8))
    _check_common(fig, "ε = 0.8", f"{noisy_attack_success(0.8):.3f}", f"{dp_success_bound(0.8):.3f}")
    # the shaded errors: the density of a 0 read as 1 right of ½, of a 1 read as 0 left of it
    wrong0, wrong1 = fig.series_by_key("wrong-0"), fig.series_by_key("wrong-1")
    assert np.all(wrong0.x > 0.5) and np.all(wrong1.x <= 0.5)
    np.testing.assert_allclose(wrong0.y2, stats.laplace.pdf(wrong0.x, 0, 1 / 0.8), rtol=1e-12)
    assert fig.extra == {"success": noisy_attack_success(0.8), "bound": dp_success_bound(0.8)}
    z, f0 = _line(fig, "bit=0")
    np.testing.assert_allclose(f0, stats.laplace.pdf(z, 0, 1 / 0.8), rtol=1e-12)
    z, f1 = _line(fig, "bit=1")
    np.testing.assert_allclose(f1, stats.laplace.pdf(z, 1, 1 / 0.8), rtol=1e-12)
    # two_queries: density of the difference of two Laplace(b) integrates to 1
    # and its mass above ½ is the exact error probability
    fig = atp.noisy_difference_data(0.8, "two_queries")
    z, f0 = _line(fig, "bit=0")
    pdf = lambda u: (1 + abs(u) / 1.25) * math.exp(-abs(u) / 1.25) / 5.0  # noqa: E731
    from scipy import integrate
    assert math.isclose(integrate.quad(pdf, -np.inf, np.inf)[0], 1.0, rel_tol=1e-9)
    err = integrate.quad(pdf, 0.5, np.inf)[0]
    assert math.isclose(1 - err, noisy_attack_success(0.8, 1, "two_queries"), rel_tol=1e-9)
    np.testing.assert_allclose(f0, [pdf(u) for u in z], rtol=1e-12)

    fig = atp.attack_success_data(epsilons=[0.1, 1.0, 3.0], highlight=1.0)
    _drawn_from(fig, atp.plot_attack_success(epsilons=[0.1, 1.0, 3.0], highlight=1.0))
    _check_common(fig, "ε = 1")
    x, y = _line(fig, "bound")
    np.testing.assert_allclose(y, np.exp(x) / (1 + np.exp(x)))
    x, y = _line(fig, "known_rest")
    np.testing.assert_allclose(y, 1 - 0.5 * np.exp(-x / 2))
    _, yh = _line(fig, "highlight")
    assert math.isclose(yh[0], dp_success_bound(1.0))
    with pytest.raises(ValueError, match="epsilon"):
        atp.plot_attack_success(highlight=-1.0)
    with pytest.raises(ValueError, match="epsilons"):
        atp.plot_attack_success(epsilons=[0.0, 1.0])
    assert_rejects_bad_values(atp.plot_noisy_difference, dict(epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)
    with pytest.raises(ValueError, match="scenario"):
        atp.plot_noisy_difference(1.0, "magic")


def test_plot_averaging_attack():
    from dpteach.attacks.differencing import dp_success_bound, noisy_attack_success
    from dpteach.plots import attacks as atp

    fig = atp.averaging_attack_data(0.5, k_max=50, simulated={1: 0.56, 10: 0.8})
    _drawn_from(fig, atp.plot_averaging_attack(0.5, k_max=50, simulated={1: 0.56, 10: 0.8}))
    _check_common(fig, "ε = 0.5")
    k, y = _line(fig, "exact")
    assert k[0] == 1 and k[-1] == 50
    np.testing.assert_allclose(y, [noisy_attack_success(0.5, int(j)) for j in k])
    k, y = _line(fig, "bound")
    np.testing.assert_allclose(y, [dp_success_bound(0.5 * j) for j in k])
    _, ys = _line(fig, "simulated")
    np.testing.assert_allclose(ys, [0.56, 0.8])
    with pytest.raises(ValueError, match="k_max"):
        atp.plot_averaging_attack(0.5, k_max=1)
    with pytest.raises(ValueError, match="simulated"):
        atp.plot_averaging_attack(0.5, simulated={1: 1.5})
    with pytest.raises(TypeError, match="simulated"):
        atp.plot_averaging_attack(0.5, simulated=[0.5])


# --------------------------------------------- the data functions behind the app's charts
from _props import BAD_CHOICE, BAD_POSITIVE, BAD_PROB, bad_int  # noqa: E402

from dpteach.plots import attacks as _att  # noqa: E402
from dpteach.plots import calibration as _cal  # noqa: E402
from dpteach.plots import randomized_response as _rrp  # noqa: E402

_DATA_CASES = [
    (_cal.error_vs_epsilon_data, {"sensitivity": 1.0, "delta": 1e-5}, "sensitivity", BAD_POSITIVE),
    (_cal.error_vs_epsilon_data, {"sensitivity": 1.0, "delta": 1e-5}, "method", BAD_CHOICE),
    (_cal.neighbouring_densities_data, {"sensitivity": 1.0, "epsilon": 1.0}, "epsilon",
     BAD_POSITIVE),
    (_cal.neighbouring_densities_data, {"sensitivity": 1.0, "epsilon": 1.0}, "mechanism",
     BAD_CHOICE),
    (_cal.privacy_loss_data, {"sensitivity": 1.0, "epsilon": 1.0}, "sensitivity", BAD_POSITIVE),
    (_cal.privacy_loss_data, {"sensitivity": 1.0, "epsilon": 1.0}, "epsilon", BAD_POSITIVE),
    (_cal.sigma_comparison_data, {"sensitivity": 1.0, "delta": 1e-5}, "sensitivity",
     BAD_POSITIVE),
    (_rrp.rr_estimator_data, {"true_rate": 0.3, "n": 100, "gamma": 0.25, "n_trials": 20,
                              "rng": 0}, "true_rate", BAD_PROB),
    (_rrp.rr_estimator_data, {"true_rate": 0.3, "n": 100, "gamma": 0.25, "n_trials": 20,
                              "rng": 0}, "n_trials", bad_int(2, 10**6)),
    (_rrp.rr_probabilities_data, {}, "epsilon", BAD_POSITIVE.filter(lambda v: v is not None)),
    (_rrp.local_vs_central_data, {"epsilon": 1.0}, "epsilon", BAD_POSITIVE),
    (_cal.dimension_crossover_data, {"epsilon": 1.0, "delta": 1e-5}, "epsilon", BAD_POSITIVE),
    (_cal.dimension_crossover_data, {"epsilon": 1.0, "delta": 1e-5}, "max_dimension",
     bad_int(2, 10**7)),
    (_att.noisy_difference_data, {"epsilon": 1.0}, "epsilon", BAD_POSITIVE),
    (_att.noisy_difference_data, {"epsilon": 1.0}, "scenario", BAD_CHOICE),
]


@pytest.mark.parametrize("func, valid, arg, strategy", _DATA_CASES,
                         ids=[f"{c[0].__name__}-{c[2]}" for c in _DATA_CASES])
def test_chart_data_functions_refuse_bad_values(func, valid, arg, strategy):
    # the app calls these directly (the plot_* functions draw them), so they check too
    assert_rejects_bad_values(func, valid, arg, strategy)
