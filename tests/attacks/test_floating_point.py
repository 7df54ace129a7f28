"""Tests of dpteach.attacks.floating_point: Mironov's attack on the textbook Laplace sampler.

* The model is right: ``textbook_laplace_noise`` is bit for bit NumPy's
  ``Generator.laplace`` (and hence ``laplace_mechanism``).
* The tests are sound: no output a sampler produced from v is ever declared impossible
  from v (hundreds of thousands of outputs, many values and scales).
* The exact test is right when it says "impossible": a brute-force scan over the uniform
  doubles near the real-valued inverse finds no witness; and when it says "possible",
  the scan finds one.
* The attack succeeds on NumPy's sampler far beyond what DP allows, and finds nothing
  against the snapping mechanism and the exact discrete Laplace: no output is ruled out
  and the success rate stays within sampling error of the Laplace optimum
  ``1 − e^{−ε/2}/2 ≤ e^ε/(1+e^ε)``. Success rates are proportions over n trials with
  SE ≤ √(¼/n); we allow 5 SE (two-sided p ≈ 6e-7) with fixed seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dpteach.mechanisms import noise as mechanisms
from dpteach.attacks import floating_point as fp
from dpteach.exact.secure import secure_laplace_mechanism
from dpteach.exact.snapping import snapping_mechanism


# ------------------------------------------------------------------------ the model
@pytest.mark.parametrize("scale", [1.0, 1.7, 1e-3, 12345.678])
def test_textbook_noise_is_numpys_laplace_bit_for_bit(scale):
    n = 100_000
    u = np.random.default_rng(5).random(n)
    reference = np.random.default_rng(5).laplace(0.0, scale, n)
    np.testing.assert_array_equal(fp.textbook_laplace_noise(u, scale), reference)
    # and what laplace_mechanism adds to the answer
    np.testing.assert_array_equal(mechanisms.laplace_mechanism(np.zeros(n), scale, 1.0, rng=5),
                                  reference)
    assert type(fp.textbook_laplace_noise(0.25, scale)) is float


def test_textbook_noise_formula():
    assert fp.textbook_laplace_noise(0.5, 2.0) == 0.0                       # log(1) = 0
    assert fp.textbook_laplace_noise(0.25, 2.0) == 2.0 * math.log(0.5)
    assert fp.textbook_laplace_noise(0.75, 2.0) == -(2.0 * math.log(0.5))


# ------------------------------------------------------------------------- soundness
@pytest.mark.parametrize("v", [0.0, 1.0, -1.0, 0.1, 1e-300, 3.7e5, -1e10, 2.0**-1070])
def test_tests_never_rule_out_the_truth(v):
    rng = np.random.default_rng(abs(hash(v)) % 2**32)
    for scale in (1e-3, 1.0, 7.3, 1e6):
        out = mechanisms.laplace_mechanism(np.full(5000, v), scale, 1.0, rng=rng)
        assert not fp.impossible_under(out, v, scale).any()
        assert not fp.precision_test(out, v).any()


def _witness(x, v, scale, width=3000):
    """Brute force: uniform indices k near the real inverse with v ⊕ noise(k·2⁻⁵³) = x."""
    y = x - v
    if y < 0:
        centre = int(math.exp(y / scale) / 2 * 2**53)
    else:
        centre = int((1 - math.exp(-y / scale) / 2) * 2**53)
    k = np.arange(max(centre - width, 1), min(centre + width, 2**53 - 1))
    hits = v + fp.textbook_laplace_noise(k * 2.0**-53, scale) == x
    return k[hits]


def test_exact_test_agrees_with_brute_force():
    out = mechanisms.laplace_mechanism(np.zeros(300), 1.0, 1.0, rng=21)   # input 0
    flags = fp.impossible_under(out, 1.0, 1.0)
    assert 0.6 < flags.mean() < 0.95
    for x, flag in zip(out[:120], flags[:120]):
        witnesses = _witness(x, 1.0, 1.0)
        # "impossible" ⇒ no witness near the inverse; "possible" ⇒ one is found there
        assert (witnesses.size == 0) == flag, (x, flag, witnesses[:3])
    # and the truth always has a witness
    for x in out[:40]:
        assert _witness(x, 0.0, 1.0).size > 0


def test_precision_test_example_from_the_docstring():
    x = 0.25 + 2.0**-54                      # needs the 2**-54 bit: not a multiple of 2**-53
    assert fp.precision_test(x, 1.0) and not fp.precision_test(x, 0.0)
    assert not fp.precision_test(0.25 + 2.0**-53, 1.0)
    assert fp.precision_test(np.array([x, 0.5]), 1.0).tolist() == [True, False]
    # the exact test agrees on this one (it is at least as strong)
    assert fp.impossible_under(x, 1.0, 1.0)
    # far from the input (|value| ≤ 1e15 in the domain) and at the smallest input
    assert not fp.precision_test(1e308, -1e15) and not fp.precision_test(0.0, 5e-324)


# --------------------------------------------------------------------------- attack
def test_attack_succeeds_on_numpys_sampler_far_beyond_dp():
    n = 2000
    for scale in (1.0, 100.0):
        res = fp.floating_point_attack("numpy", 0.0, 1.0, scale=scale, n_trials=n, rng=3)
        assert res.wrong == 0 and res.ruled_out > 0.7 * n
        assert res.epsilon == 1.0 / scale
        assert res.dp_bound == pytest.approx(1 / (1 + math.exp(-1 / scale)))
        # success ≈ 0.90 at both scales; DP allows 0.731 and 0.502: 5 SE above the bound
        assert res.success_rate > res.dp_bound + 5 * math.sqrt(0.25 / n)
        assert res.success_rate > 0.85
    prec = fp.floating_point_attack("numpy", 0.0, 1.0, scale=0.1, n_trials=n, test="precision",
                                    rng=4)
    assert prec.wrong == 0 and prec.ruled_out > 0.3 * n and prec.success_rate > 0.99


@pytest.mark.parametrize("sampler", ["snapping", "discrete"])
@pytest.mark.parametrize("test", ["exact", "precision"])
def test_attack_finds_nothing_against_the_secure_samplers(sampler, test):
    n = 2000
    res = fp.floating_point_attack(sampler, 0.0, 1.0, scale=1.0, n_trials=n, test=test, rng=8)
    assert res.ruled_out == 0 and res.wrong == 0
    # what is left is the closer-input guess: for Laplace noise of scale 1 and inputs 0, 1 it
    # wins with probability 1 − e^{−1/2}/2 = 0.697 (the snapped/discretised noise is within
    # rounding of it); DP allows e/(1+e) = 0.731
    se = math.sqrt(0.25 / n)
    assert abs(res.success_rate - (1 - math.exp(-0.5) / 2)) <= 5 * se
    assert res.success_rate <= res.dp_bound + 5 * se


def test_secure_outputs_are_never_flagged_by_the_precision_test():
    for v in (0.0, 1.0, 0.1, -3.3):
        snapped = snapping_mechanism(np.full(500, v), sensitivity=1.0, epsilon=1.0, bound=50.0,
                                     rng=1)
        discrete = secure_laplace_mechanism(np.full(500, v), 1.0, 1.0, rng=2)
        for other in (0.0, 1.0, 0.1, -3.3):
            assert not fp.precision_test(snapped, other).any()
            assert not fp.precision_test(discrete, other).any()


def test_attack_result_fields_and_types():
    res = fp.floating_point_attack("numpy", 0.0, 1.0, scale=1.0, n_trials=10, rng=0)
    assert (res.sampler, res.test, res.n_trials) == ("numpy", "exact", 10)
    assert type(res.success_rate) is float and type(res.ruled_out) is int
    assert type(res.epsilon) is float and type(res.dp_bound) is float
    assert 0.0 <= res.success_rate <= 1.0
    assert fp.floating_point_attack("numpy", 0.0, 1.0, scale=1.0, n_trials=50, rng=3) == \
        fp.floating_point_attack("numpy", 0.0, 1.0, scale=1.0, n_trials=50, rng=3)
    big = fp.floating_point_attack("numpy", 0.0, 1000.0, scale=1.0, n_trials=10, rng=0)
    assert big.dp_bound == 1.0
    # one output in, one answer out: a bool, not a 0-d array
    assert type(fp.impossible_under(0.5, 1.0, 1.0)) is bool
    assert type(fp.precision_test(0.5, 1.0)) is bool
    # the ends of the domain: |value| = 1e15 and scale 1e6 stay far from overflow
    edge = fp.floating_point_attack("numpy", -1e15, 1e15, scale=1e6, n_trials=50, rng=0)
    assert edge.wrong == 0 and edge.dp_bound == 1.0


def test_attack_refusals():
    with pytest.raises(ValueError, match="value_prime must be different from value"):
        fp.floating_point_attack("numpy", 1.0, 1.0, scale=1.0)
    with pytest.raises(ValueError, match="bound must be None with sampler='numpy'"):
        fp.floating_point_attack("numpy", 0.0, 1.0, scale=1.0, bound=10.0)
    with pytest.raises(ValueError, match="granularity must be None with sampler='snapping'"):
        fp.floating_point_attack("snapping", 0.0, 1.0, scale=1.0, granularity=0.5)
    with pytest.raises(ValueError, match=r"bound must be in \(Δ/ε"):
        fp.floating_point_attack("snapping", 0.0, 1.0, scale=1.0, bound=0.5, n_trials=5)
    with pytest.raises(ValueError, match=r"u must be .* uniform doubles in \[2\*\*-53, 1 - 2\*\*-53\]"):
        fp.textbook_laplace_noise([0.0, 0.5], 1.0)              # 0 is not a uniform double
    with pytest.raises(ValueError, match="outputs must be .* 0 to 1,000,000 of them"):
        fp.precision_test(np.zeros(10**6 + 1), 0.0)
    with pytest.raises(ValueError, match="outputs must be .* 0 to 100,000 of them"):
        fp.impossible_under(np.zeros(10**5 + 1), 0.0, 1.0)
