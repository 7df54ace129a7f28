"""The numbers of the figures that used to be drawn by matplotlib directly, read from their
FigureData: each is the math module's answer (selection probabilities, privacy losses, block
counts, the PTR threshold, amplification, ROC curves and the DP ceiling, the minimiser's
distances and excess risks), and its ``plot_*`` function draws exactly that data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpteach.accounting.composition import amplify_by_subsampling
from dpteach.attacks.roc import dp_roc_bound, roc_from_scores
from dpteach.mechanisms import selection as S
from dpteach.mechanisms import stability as R
from dpteach.mechanisms.sparse_vector import sparse_vector_noise_scales
from dpteach.plots import accounting as PA
from dpteach.plots import dpsgd as PD
from dpteach.plots import erm as PE
from dpteach.plots import selection as PS


def drawn_from(data, fig):
    """``fig`` is ``data`` drawn by matplotlib: lines, markers and bars carry its numbers."""
    ax = fig.axes[0]
    lines = {ln.get_gid(): ln for ln in ax.lines}
    for s in data.series:
        if s.kind in ("line", "points", "step"):
            np.testing.assert_array_equal(lines[s.key].get_xdata(), s.x)
            np.testing.assert_array_equal(lines[s.key].get_ydata(), s.y)
        elif s.kind == "bars":
            heights = [p.get_height() for p in ax.patches if p.get_gid() == s.key]
            np.testing.assert_array_equal(heights, s.y)
    assert " ".join(ax.get_title().split()) == " ".join(data.title.split())


# ------------------------------------------------------------------------- selection
def test_selection_bars_are_the_mechanisms_probabilities():
    scores = [3.0, 1.0, 0.0, 2.5]
    data = PS.exponential_mechanism_data(scores, 1.0, 0.7, labels="abcd")
    p = S.exponential_mechanism_probabilities(scores, 1.0, 0.7)
    np.testing.assert_allclose(data.series_by_key("probabilities").y, p)
    truth = data.series_by_key("truth")                 # the best score, drawn again on top
    assert truth.x.tolist() == [0] and truth.y.tolist() == [p[0]]
    assert data.x_ticks == ((0, "a"), (1, "b"), (2, "c"), (3, "d"))
    drawn_from(data, PS.plot_exponential_mechanism(scores, 1.0, 0.7, labels="abcd"))
    # many candidates: a named tick under every ⌈k/20⌉-th
    many = PS.selection_probabilities_data(np.full(45, 1 / 45))
    assert [v for v, _ in many.x_ticks] == list(range(0, 45, 3))
    data = PS.private_median_data([20.0, 21.0, 21.0, 22.0, 40.0], np.arange(18.0, 45.0), 0.5)
    np.testing.assert_allclose(data.series_by_key("probabilities").y,
                               S.private_median_probabilities(
                                   [20.0, 21.0, 21.0, 22.0, 40.0], np.arange(18.0, 45.0), 0.5))
    assert data.series_by_key("truth").x.tolist() == [3]               # the median, 21
    data = PS.private_mode_data(["a", "b", "b"], ["a", "b", "c"], 1.0, neighbouring="replace")
    assert "replace-one neighbours" in data.title
    for noise in ("gumbel", "laplace", "exponential"):
        bars = PS.noisy_max_comparison_data([10.0, 9.0, 5.0], 1.0, 1.0,
                                            monotonic=True).series_by_key(noise)
        np.testing.assert_allclose(
            bars.y, S.report_noisy_max_probabilities([10.0, 9.0, 5.0], 1.0, 1.0, True, noise))


def test_event_privacy_loss_and_svt_are_the_closed_forms():
    data = PS.event_privacy_loss_data({"AT": (0.2, 0.25), "broken": (0.0, 0.22)}, 1.0)
    loss = data.series_by_key("loss")
    assert loss.y[0] == pytest.approx(abs(math.log(0.2 / 0.25)))
    assert data.extra["losses"][1] == math.inf and loss.y[1] == 3.0     # drawn at the top
    assert data.series_by_key("loss-exceeds").x.tolist() == [1]         # only above ε
    assert [t.text for t in data.texts] == [f"{abs(math.log(0.8)):.3g}", "∞"]
    assert data.x_ticks == ((0, "AT"), (1, "broken"))
    drawn_from(data, PS.plot_event_privacy_loss({"AT": (0.2, 0.25), "broken": (0.0, 0.22)},
                                                1.0))
    data = PS.svt_vs_composition_data(0.5, 500, max_above=2, delta=None)
    k, svt = data.series_by_key("svt").x, data.series_by_key("svt").y
    assert np.all(svt == sparse_vector_noise_scales(0.5, 1.0, 2)[1]) and k[-1] == 500
    np.testing.assert_allclose(data.series_by_key("laplace-basic").y, k / 0.5)
    assert data.x_integer and data.log_x and data.log_y


def test_block_estimates_and_ptr_are_the_stability_numbers():
    est = np.random.default_rng(0).normal(38, 3, 60)
    data = PS.block_estimates_data(est, 17.0, 90.0, released=38.4, truth=38.6)
    blocks = data.series_by_key("blocks")
    assert blocks.y.sum() == 60 and data.y_integer
    counts, edges = np.histogram(est, bins=20)
    np.testing.assert_array_equal(blocks.y, counts)
    np.testing.assert_allclose(blocks.x, (edges[:-1] + edges[1:]) / 2)
    (span,) = data.spans
    assert (span.low, span.high) == (17.0, 90.0)
    assert {r.key: r.value for r in data.rules} == {"truth": 38.6, "released": 38.4}
    drawn_from(data, PS.plot_block_estimates(est, 17.0, 90.0, released=38.4, truth=38.6))
    x = np.arange(20.0, 40.0)
    data = PS.ptr_distance_data(x, 0.0, 100.0, 1.0, 1e-6, bounds=[0.0, 1.0, 5.0])
    gamma = data.series_by_key("distance")
    assert gamma.kind == "step" and gamma.where == "post" and data.symlog_y
    np.testing.assert_array_equal(gamma.y, [R.median_distance_to_instability(x, b, 0.0, 100.0)
                                            for b in (0.0, 1.0, 5.0)])
    (threshold,) = data.rules
    assert threshold.value == pytest.approx(-math.log(1e-6) / 0.5, rel=1e-12)


# -------------------------------------------------------------------------- accounting
def test_amplification_is_amplify_by_subsampling():
    data = PA.amplification_data((0.5, 2.0))
    q = data.extra["q"]
    for i, eps in enumerate((0.5, 2.0)):
        np.testing.assert_allclose(data.series_by_key(f"epsilon-{i}").y,
                                   [amplify_by_subsampling(eps, v) for v in q], rtol=1e-12)
        np.testing.assert_allclose(data.series_by_key(f"approximation-{i}").y, q * eps)
    assert [label for label, _ in data.legend_entries()] == [
        "ε = 0.5", "ε = 2", "q·ε (small-ε approximation, dotted)"]
    drawn_from(data, PA.plot_amplification((0.5, 2.0)))


# ------------------------------------------------------------------------------ DP-SGD
def test_mia_roc_curves_and_the_dp_ceiling():
    rng = np.random.default_rng(0)
    members = rng.random(200) < 0.5
    roc = roc_from_scores(rng.standard_normal(200) + members, members, name="loss attack")
    data = PD.mia_roc_data(roc, epsilon=[1.0, 4.0], delta=1e-5)
    curve = data.series_by_key("roc-0")
    keep = (roc.fpr > 0) & (roc.tpr > 0)                       # the log axes show these
    np.testing.assert_array_equal(curve.x, roc.fpr[keep])
    np.testing.assert_array_equal(curve.y, roc.tpr[keep])
    assert curve.label == f"loss attack (AUC {roc.auc:.2f})"
    ceiling = data.series_by_key("dp-bound-4")
    np.testing.assert_allclose(ceiling.y, dp_roc_bound(ceiling.x, 4.0, 1e-5))
    assert data.x_domain == (1 / roc.n_nonmembers, 1.0) and data.log_x and data.log_y
    drawn_from(data, PD.plot_mia_roc(roc, epsilon=[1.0, 4.0], delta=1e-5))
    linear = PD.mia_roc_data(roc, log=False)
    np.testing.assert_array_equal(linear.series_by_key("roc-0").x, roc.fpr)
    assert not linear.log_x and linear.x_domain == (0.0, 1.0)


def test_privacy_utility_in_increasing_epsilon():
    data = PD.privacy_utility_data([4.0, 0.5, 1.0], [0.9, 0.6, 0.8], baseline=0.95)
    line = data.series_by_key("utility")
    assert line.x.tolist() == [0.5, 1.0, 4.0] and line.y.tolist() == [0.6, 0.8, 0.9]
    assert [(r.key, r.value) for r in data.rules] == [("baseline", 0.95)]
    drawn_from(data, PD.plot_privacy_utility([4.0, 0.5, 1.0], [0.9, 0.6, 0.8], baseline=0.95))


# --------------------------------------------------------------------------------- ERM
@pytest.fixture(scope="module")
def toy():
    from dpteach.datasets import make_toy_data
    return make_toy_data(60, rng=0)


def test_sensitivity_points_are_the_measured_distances(toy):
    from dpteach.learning.erm_experiments import minimizer_sensitivity

    res = minimizer_sensitivity(*toy, 0.1, data_norm=4.0, n_random=4, n_adversarial=2, rng=0)
    data = PE.sensitivity_data(res)
    for j, kind in enumerate(("random", "adversarial")):
        pts = data.series_by_key(f"dist-{kind}")
        np.testing.assert_array_equal(pts.x, res.distances[res.kinds == kind])
        assert np.all(np.abs(pts.y - j) <= 0.15)              # jittered about its row
    assert data.y_ticks == ((0, "random"), (1, "adversarial"))
    (bound,) = data.rules
    assert bound.value == res.bound == pytest.approx(2 / (res.n * res.lam))
    drawn_from(data, PE.plot_sensitivity(res))


def test_excess_risk_medians_ranges_and_bounds():
    measured = {"output": np.array([[0.1, 0.3, 0.2], [0.01, 0.03, 0.02]])}
    data = PE.excess_risk_data([0.5, 2.0], measured, {"output": [1.0, 0.25]})
    np.testing.assert_allclose(data.series_by_key("measured-output").y, [0.2, 0.02])
    band = data.series_by_key("range-output")
    np.testing.assert_allclose(band.y, [0.1, 0.01])
    np.testing.assert_allclose(band.y2, [0.3, 0.03])
    np.testing.assert_allclose(data.series_by_key("bound-output").y, [1.0, 0.25])
    assert data.series_by_key("bound-output").label.startswith("output perturbation")
    assert data.x_ticks == ((0.5, "0.5"), (2.0, "2"))
    drawn_from(data, PE.plot_excess_risk([0.5, 2.0], measured, {"output": [1.0, 0.25]}))


def test_noise_norm_histogram_and_the_gamma_density():
    from scipy import stats

    norms = np.array([1.0, 1.5, 1.5, 2.0, 3.0])
    data = PE.noise_norm_data(norms, 3, 2.0, bins=4)
    bars = data.series_by_key("histogram")
    heights, edges = np.histogram(norms, bins=4, density=True)
    np.testing.assert_allclose(bars.y, heights)
    np.testing.assert_allclose(bars.x, (edges[:-1] + edges[1:]) / 2)
    line = data.series_by_key("density")            # Gamma(d, scale 1/β) = Gamma(3, 0.5)
    np.testing.assert_allclose(line.y, stats.gamma(3, scale=0.5).pdf(line.x))
    drawn_from(data, PE.plot_noise_norm(norms, 3, 2.0, bins=4))


def test_lambda_scan_lines_are_the_accuracies():
    lams, acc = [1e-4, 1e-3], {"objective": [0.8, 0.82], "none": [0.85, 0.84]}
    data = PE.lambda_scan_data(lams, acc, epsilon=1.0, baseline=0.75)
    np.testing.assert_allclose(data.series_by_key("accuracy-objective").y, [0.8, 0.82])
    assert data.series_by_key("accuracy-none").dash == "dashed"
    assert data.rules[0].value == 0.75
    with pytest.raises(ValueError):
        PE.lambda_scan_data(lams, {"objective": [0.8]}, epsilon=1.0)
    drawn_from(data, PE.plot_lambda_scan(lams, acc, epsilon=1.0, baseline=0.75))
