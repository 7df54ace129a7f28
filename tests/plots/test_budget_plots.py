"""Tests for dpteach.plots.budget: the trade-off and RDP-order figures of notebooks 05 and 06.

Each figure's numbers are read from its FigureData and compared with closed forms (basic
composition kε₀, the Laplace standard deviation √2/ε₀, the noise σ/B of an averaged
gradient, the improved RDP conversion of Balle et al. 2020, Thm 21) or with the accountants
called directly; the matplotlib figure draws exactly that data. Bad arguments are refused by
name (the generated tests of tests/test_domains.py cover each declared domain).
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from dpteach._validation import ParameterError  # noqa: E402
from dpteach.accounting.compare import composition_epsilons  # noqa: E402
from dpteach.accounting.convert import rdp_to_epsilon  # noqa: E402
from dpteach.accounting.rdp import DEFAULT_ORDERS, RDPAccountant, gaussian_rdp, laplace_rdp  # noqa: E402
from dpteach.plots import budget  # noqa: E402


def _line(fig, gid):
    found = [ln for ln in fig.axes[0].lines if ln.get_gid() == gid]
    assert len(found) == 1, f"expected one line with gid {gid!r}, got {len(found)}"
    return np.asarray(found[0].get_xdata(), float), np.asarray(found[0].get_ydata(), float)


# ------------------------------------------------------------------ composition trade-off
def test_laplace_tradeoff_is_basic_composition_against_the_laplace_sd():
    data = budget.composition_tradeoff_data(100, epsilon=0.1, delta=1e-5,
                                            methods=("basic", "advanced", "optimal"))
    eps0 = np.sort(np.array(budget.LAPLACE_EPSILONS))[::-1]        # increasing noise
    np.testing.assert_allclose(data.extra["noise"], math.sqrt(2) / eps0, rtol=1e-15)
    np.testing.assert_allclose(data.series_by_key("basic").y, 100 * eps0, rtol=1e-15)
    for m in ("advanced", "optimal"):
        want = [composition_epsilons(100, epsilon=e, delta=1e-5, methods=(m,))[m][0]
                for e in eps0]
        np.testing.assert_allclose(data.series_by_key(m).y, want, rtol=1e-12)
    # the optimal bound is never above basic composition; the mark sits on every curve
    assert np.all(data.series_by_key("optimal").y <= data.series_by_key("basic").y * (1 + 1e-12))
    assert data.extra["mark_noise"] == pytest.approx(math.sqrt(2) / 0.1, rel=1e-15)
    assert data.extra["at_mark"]["basic"] == pytest.approx(10.0, rel=1e-15)
    assert "100 Laplace answers" in data.title


def test_gaussian_tradeoff_draws_sigma_and_every_method():
    data = budget.composition_tradeoff_data(100, mechanism="gaussian", epsilon=None, sigma=5.0,
                                            delta=1e-5, methods=("rdp", "pld"))
    np.testing.assert_array_equal(data.extra["noise"], np.sort(budget.GAUSSIAN_SIGMAS))
    at = data.extra["at_mark"]
    direct = composition_epsilons(100, mechanism="gaussian", sigma=5.0, delta=1e-5,
                                  methods=("rdp", "pld"))
    assert at == {m: pytest.approx(direct[m][0], rel=1e-12) for m in ("rdp", "pld")}
    fig = budget.plot_composition_tradeoff(100, mechanism="gaussian", epsilon=None, sigma=5.0,
                                           methods=("rdp", "pld"))
    x, y = _line(fig, "pld")
    np.testing.assert_array_equal(x, data.series_by_key("pld").x)
    np.testing.assert_array_equal(y, data.series_by_key("pld").y)


def test_tradeoff_refuses_a_mark_of_the_other_mechanism_and_repeated_methods():
    with pytest.raises(ParameterError, match=r"\bsigma\b"):
        budget.composition_tradeoff_data(10, sigma=5.0)
    with pytest.raises(ParameterError, match=r"\bepsilon\b"):
        budget.composition_tradeoff_data(10, mechanism="gaussian", epsilon=0.1)
    with pytest.raises(ParameterError, match=r"\bmethods\b"):
        budget.composition_tradeoff_data(10, methods=("basic", "basic"))


# ------------------------------------------------------------------ DP-SGD trade-off
def test_dpsgd_tradeoff_is_sigma_over_batch_against_the_rdp_epsilon():
    data = budget.dpsgd_tradeoff_data(60_000, 64, batch_sizes=(256, 1024), delta=1e-5,
                                      batch=256, noise_multiplier=1.1)
    sigmas = np.array(budget.DPSGD_SIGMAS)
    for b in (256, 1024):
        q, steps = data.extra["runs"][b]
        assert q == b / 60_000 and steps == round(64 / q)
        np.testing.assert_allclose(data.series_by_key(f"batch-{b}").x, sigmas / b, rtol=1e-15)
        acc = RDPAccountant()
        acc.step(noise_multiplier=2.0, sample_rate=q, steps=steps)
        i = int(np.flatnonzero(sigmas == 2.0)[0])
        assert data.extra["epsilon"][b][i] == pytest.approx(acc.get_epsilon(1e-5), rel=1e-12)
        assert np.all(np.diff(data.extra["epsilon"][b]) < 0)      # more noise, smaller ε
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=15_000)
    assert data.extra["mark"] == pytest.approx((1.1 / 256, acc.get_epsilon(1e-5)), rel=1e-12)
    fig = budget.plot_dpsgd_tradeoff(60_000, 64, batch_sizes=(256, 1024))
    x, y = _line(fig, "batch-1024")
    np.testing.assert_array_equal(y, data.series_by_key("batch-1024").y)


def test_dpsgd_tradeoff_refuses_runs_it_cannot_draw():
    with pytest.raises(ParameterError, match=r"\bbatch_sizes\b"):
        budget.dpsgd_tradeoff_data(1000, 10, batch_sizes=(64, 4096))
    with pytest.raises(ParameterError, match=r"\bnoise_multiplier\b"):
        budget.dpsgd_tradeoff_data(1000, 10, batch_sizes=(64,), batch=64, noise_multiplier=None)
    with pytest.raises(ParameterError, match=r"\bbatch\b"):
        budget.dpsgd_tradeoff_data(1000, 10, batch_sizes=(64,), batch=2000)


# ------------------------------------------------------------------ RDP orders
@pytest.mark.parametrize("conversion", ["improved", "classic"])
def test_each_order_gives_the_conversion_of_that_order(conversion):
    orders = np.array(DEFAULT_ORDERS)
    rdp = 100 * laplace_rdp(orders, scale=10.0)
    data = budget.rdp_orders_data(orders, rdp, 1e-5, conversion)
    if conversion == "improved":        # Balle et al. 2020, Thm 21
        want = rdp + np.log1p(-1 / orders) - (math.log(1e-5) + np.log(orders)) / (orders - 1)
    else:                               # Mironov 2017, Prop. 3
        want = rdp + math.log(1e5) / (orders - 1)
    np.testing.assert_allclose(data.extra["epsilons"], want, rtol=1e-12)
    best, order = rdp_to_epsilon(orders, rdp, 1e-5, conversion)
    assert data.extra["best_epsilon"] == best and data.extra["best_order"] == order
    assert data.series_by_key("best").y[0] == best


def test_rdp_orders_sorts_the_orders_and_refuses_what_it_cannot_draw():
    orders = np.array([8.0, 2.0, 32.0])
    data = budget.rdp_orders_data(orders, gaussian_rdp(orders, 2.0), 1e-5)
    np.testing.assert_array_equal(data.series_by_key("rdp").x, [2.0, 8.0, 32.0])
    np.testing.assert_allclose(data.series_by_key("rdp").y, np.array([2.0, 8.0, 32.0]) / 8)
    with pytest.raises(ParameterError, match=r"\brdp\b"):
        budget.rdp_orders_data([2.0, 8.0], [0.1, math.inf], 1e-5)
    with pytest.raises(ParameterError, match=r"\borders\b"):
        budget.rdp_orders_data([2.0], [0.1], 1e-5)
