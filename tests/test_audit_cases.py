"""The audit catalogue (dpteach.audit_cases): each case's exact true ε, and its arguments.

The true ε of a pair is computed from the mechanism's exact output distribution; here it is
checked against closed forms (Laplace and randomized response ε; the planted bugs 2ε; the
exponential mechanism e^{ε/2}(1 + 3e^{ε/2})/(e^{ε/2} + 3) for scores (1,0,0,0) vs (0,1,1,1);
the Gaussian's ε at δ is the claim, since the analytic σ is tight).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _props import BAD_CHOICE, NOT_A_NUMBER, NOT_BOOL, assert_rejects_bad_values, call_rejects
from hypothesis import strategies as st

from dpteach import audit_cases as C
from dpteach._validation import ParameterError


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_true_epsilons_match_closed_forms(eps):
    t = {name: C.audit_case(name, eps).true_epsilon for name in C.CORRECT + C.BUGS}
    for name in ("laplace", "laplace_secure", "randomized_response", "k_randomized_response"):
        assert t[name] == pytest.approx(eps, rel=1e-9), name
    assert t["gaussian"] == pytest.approx(eps, rel=1e-6)
    assert t["laplace_half_scale"] == pytest.approx(2 * eps, rel=1e-12)
    assert t["rr_wrong_epsilon"] == pytest.approx(2 * eps, rel=1e-9)
    h = math.exp(eps / 2)
    assert t["exponential_mechanism"] == pytest.approx(math.log(h * (1 + 3 * h) / (h + 3)),
                                                       rel=1e-9)
    assert 0 < t["report_noisy_max"] <= eps and 0 < t["sparse_vector"] <= eps
    assert t["svt_no_query_noise"] == math.inf
    assert C.audit_case("laplace_floating_point", eps).true_epsilon == math.inf


def test_every_case_has_what_an_audit_needs():
    for name in C.CORRECT + C.BUGS + C.FLOATING_POINT:
        c = C.audit_case(name, 0.5)
        out = c.mechanism(c.d, 7, np.random.default_rng(0))
        assert out.shape == (7,) and np.all(np.isfinite(out)), name
        assert c.planted_bug == (name in C.BUGS) and c.test in ("threshold", "histogram")
        assert c.delta == (1e-5 if name == "gaussian" else 0.0) and c.title and c.description
    for good, bad in C.PLANTED_BUGS.items():
        assert C.audit_case(good, bug=True).name == bad


def test_convergence_of_a_case():
    b = C.audit_case("randomized_response", 1.0).convergence([100, 1_000, 10_000], rng=0)
    assert b.shape == (3,) and b[0] < b[-1] <= 1.0


def test_pair_epsilon():
    assert C.pair_epsilon([0.5, 0.5], [0.25, 0.75]) == pytest.approx(math.log(2))
    assert C.pair_epsilon([0.5, 0.5, 0.0], [0.5, 0.4, 0.1]) == math.inf
    assert C.pair_epsilon([0.0, 1.0], [0.0, 1.0]) == 0.0
    for bad in ([0.5, 1.5], [-0.1, 1.1], "x", [[0.5]], None):
        call_rejects(C.pair_epsilon, dict(p=bad, p_prime=[0.5, 0.5]), "p")
    call_rejects(C.pair_epsilon, dict(p=[0.5, 0.5], p_prime=[1.0]), "p_prime")


def test_bad_input_is_refused_by_name():
    valid = dict(name="laplace", epsilon=1.0)
    assert_rejects_bad_values(C.audit_case, valid, "name", BAD_CHOICE)
    assert_rejects_bad_values(C.audit_case, valid, "epsilon",
                              st.one_of(NOT_A_NUMBER, st.sampled_from([0.0, -1.0, 20.5, math.inf,
                                                                       math.nan])))
    assert_rejects_bad_values(C.audit_case, valid, "delta",
                              st.sampled_from([0.0, 1.0, -1e-5, math.nan, "1e-5", None]))
    assert_rejects_bad_values(C.audit_case, valid, "bug", NOT_BOOL)
    with pytest.raises(ParameterError, match="bug"):
        C.audit_case("gaussian", bug=True)
