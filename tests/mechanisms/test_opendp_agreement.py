"""OpenDP's privacy maps agree with dpteach's ε = Δ/b (notebook 24 releases with both).

dpteach's Laplace mechanism adds ``Lap(b)`` with ``b = laplace_scale(Δ, ε) = Δ/ε``: (ε, 0)-DP
when Δ bounds the ℓ1 sensitivity (Dwork & Roth 2014, Thm 3.6). OpenDP (0.16) states the
same guarantee as a *privacy map*: a measurement built on an explicit input domain and
metric answers ``map(d_in)``, the ε it guarantees when the input changes by ``d_in``. Under
OpenDP's symmetric distance ``d_in`` counts rows added or removed, so dpteach's add/remove-one
neighbours are ``d_in = 1``, and a replace-one change (one row out, one in) is ``d_in = 2``.

What is checked, for the count and the histogram of the notebook at many scales:

* ``map(Δ)`` of OpenDP's count (``then_count``) and histogram (``then_count_by_categories``)
  followed by ``then_laplace(scale=b)`` equals dpteach's ε = Δ/b for b = ``laplace_scale(Δ, ε)``:
  never below it (OpenDP rounds its arithmetic upwards, so its bound is never below the true
  one) and at most a few units in the last place above (one division rounded up);
* replace-one neighbours (OpenDP's ``change_one_distance`` on data of known size, turned into
  symmetric distance by ``then_metric_unbounded``): the histogram's map is dpteach's ε with
  Δ = 2, the replace-one sensitivity of a histogram;
* for a single count OpenDP charges replace-one neighbours the same d_in = 2, although one
  replaced row moves a count by at most 1: its map is a bound for every count, not the
  tightest for this one (the notebook says so).

OpenDP's noise comes from the operating system's generator and cannot be seeded, so nothing
here depends on a release: only the maps, which are deterministic.
"""

from __future__ import annotations

import opendp.prelude as dp
import pytest

from dpteach.mechanisms.noise import laplace_mechanism, laplace_scale

dp.enable_features("contrib")

#: OpenDP computes d_in/scale rounding upwards: at most a few units in the last place above
#: the exact quotient, which dpteach's Δ/b (rounded to nearest) is within half a unit of
ULPS = 4 * 2.0**-52
EPSILONS = [1e-3, 0.01, 0.1, 1 / 3, 0.5, 1.0, 2.5, 7.0, 50.0]
CATEGORIES = ["Preschool", "HS-grad", "Bachelors", "Doctorate"]
#: the same categories as Adult's education codes (OpenDP 0.16 turns change-one distance into
#: symmetric distance for numbers, not strings)
CODES = [1, 9, 13, 16]


def _count(scale: float):
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    return space >> dp.t.then_count() >> dp.m.then_laplace(scale=scale)


def _histogram(scale: float, size: int | None = None):
    if size is None:                                     # add/remove-one: symmetric distance
        space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        chain = space >> dp.t.then_count_by_categories(categories=CATEGORIES,
                                                       null_category=False)
    else:                                                # replace-one on data of known size
        space = dp.vector_domain(dp.atom_domain(T=int), size=size), dp.change_one_distance()
        chain = space >> dp.t.then_metric_unbounded() >> dp.t.then_count_by_categories(
            categories=CODES, null_category=False)
    return chain >> dp.m.then_laplace(scale=scale)


def _assert_same_bound(opendp_epsilon: float, dpteach_epsilon: float, what: str) -> None:
    assert opendp_epsilon >= dpteach_epsilon * (1 - 2.0**-52), (
        f"{what}: OpenDP's map {opendp_epsilon!r} is below dpteach's ε = Δ/b = "
        f"{dpteach_epsilon!r}")
    assert opendp_epsilon <= dpteach_epsilon * (1 + ULPS), (
        f"{what}: OpenDP's map {opendp_epsilon!r} exceeds dpteach's ε = Δ/b = "
        f"{dpteach_epsilon!r} by more than rounding")


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("rows", [1, 2, 5])
def test_count_map_is_dpteachs_epsilon(epsilon, rows):
    # `rows` people added or removed move a count by at most `rows`: Δ = rows = d_in
    b = laplace_scale(rows, epsilon)
    _assert_same_bound(_count(b).map(rows), rows / b, f"count, d_in = Δ = {rows}, b = {b!r}")
    _assert_same_bound(_count(b).map(rows), epsilon, f"count, d_in = Δ = {rows}, ε = {epsilon}")


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_histogram_map_is_dpteachs_epsilon_under_add_remove(epsilon):
    b = laplace_scale(1.0, epsilon)              # one person: one bin by one, Δ₁ = 1
    _assert_same_bound(_histogram(b).map(1), 1.0 / b, f"histogram, add/remove one, b = {b!r}")


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_histogram_map_is_dpteachs_epsilon_under_replace_one(epsilon):
    b = laplace_scale(2.0, epsilon)              # one bin down, another up: Δ₁ = 2
    replace_one = _histogram(b, size=100).map(1)
    _assert_same_bound(replace_one, 2.0 / b, f"histogram, replace one, b = {b!r}")
    # and it is the symmetric-distance map at d_in = 2: a replaced row is two changed rows
    _assert_same_bound(_histogram(b).map(2), 2.0 / b, f"histogram, d_in = 2, b = {b!r}")


def test_a_replaced_row_is_two_changed_rows():
    space = dp.vector_domain(dp.atom_domain(T=int), size=100), dp.change_one_distance()
    assert (space >> dp.t.then_metric_unbounded()).map(1) == 2


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_opendp_charges_a_replace_one_count_twice(epsilon):
    b = laplace_scale(1.0, epsilon)              # a replaced row moves a count by ≤ 1
    _assert_same_bound(_count(b).map(2), 2 * epsilon, f"count, d_in = 2, b = {b!r}")


def test_both_release_integers_and_floats_of_the_same_size():
    # the releases themselves: OpenDP's integer counts (its discrete Laplace) and dpteach's
    # real numbers; a Laplace draw of scale 1 exceeds 40 in absolute value with
    # probability e^-40 ≈ 4e-18, so both land within 40 of the truth
    data = ["HS-grad"] * 30 + ["Doctorate"] * 3
    released = _histogram(1.0)(data)
    assert [type(c) for c in released] == [int] * len(CATEGORIES)
    truth = [0, 30, 0, 3]
    assert all(abs(r - t) <= 40 for r, t in zip(released, truth)), released
    ours = laplace_mechanism(truth, 1.0, 1.0, rng=3)
    assert all(abs(r - t) <= 40 for r, t in zip(ours, truth)), ours
