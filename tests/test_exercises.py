"""``dpteach.exercises.assert_own_work``: the check that an exercise's answer is not a call
to the library function it is compared with.

Each case is a way a student could write the function: the honest ones must pass, each
shortcut (a call through the module, an alias, a helper cell, a lambda, a closure, a
partial) must fail with a message naming the function and what it used.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from _props import assert_rejects_bad_values
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.attacks import linkage as L
from dpteach.exercises import assert_own_work, names_used


def notebook(source: str) -> dict:
    """Run ``source`` as a notebook's cells would: one shared namespace."""
    namespace: dict = {}
    exec(compile(source, "<notebook>", "exec"), namespace)
    return namespace


HONEST = """
def expected_unique(n, m):
    return (1 - 1 / m) ** (n - 1)
"""

SHORTCUTS = {
    "through the module": """
from dpteach.attacks import linkage as L
def expected_unique(n, m):
    return L.expected_fraction_unique(n, m)
""",
    "an imported alias": """
from dpteach.attacks.linkage import expected_fraction_unique as efu
def expected_unique(n, m):
    return efu(n, m)
""",
    "a helper in another cell": """
import dpteach.attacks.linkage
def helper(n, m):
    return dpteach.attacks.linkage.expected_fraction_unique(n, m)
def expected_unique(n, m):
    return helper(n, m)
""",
    "a lambda inside": """
from dpteach.attacks import linkage as L
def expected_unique(n, m):
    f = lambda a, b: L.expected_fraction_unique(a, b)
    return f(n, m)
""",
    "a nested function": """
from dpteach.attacks.linkage import expected_fraction_unique
def expected_unique(n, m):
    def inner():
        return expected_fraction_unique(n, m)
    return inner()
""",
}


def test_an_honest_answer_passes_and_agrees():
    ns = notebook(HONEST)
    assert_own_work(ns["expected_unique"], L.expected_fraction_unique)
    assert ns["expected_unique"](10, 100) == pytest.approx(L.expected_fraction_unique(10, 100))


@pytest.mark.parametrize("how", SHORTCUTS)
def test_every_shortcut_to_the_library_answer_fails_with_its_name(how):
    ns = notebook(SHORTCUTS[how])
    with pytest.raises(AssertionError, match=r"expected_unique calls expected_fraction_unique, "
                                             r"the library function that gives the answer"):
        assert_own_work(ns["expected_unique"], L.expected_fraction_unique,
                        exercise="exercise 1")


def test_a_closure_and_a_partial_are_followed():
    efu = L.expected_fraction_unique

    def make():
        def expected_unique(n, m):
            return efu(n, m)
        return expected_unique

    with pytest.raises(AssertionError, match="expected_fraction_unique"):
        assert_own_work(functools.partial(make(), 10), L.expected_fraction_unique)


def test_other_library_functions_and_constants_stay_allowed():
    ns = notebook("""
import numpy as np
from dpteach.attacks import linkage as L
from dpteach.pate.analysis import DEFAULT_PATE_ORDERS
def expected_unique(n, m):
    t = L.adult_with_quasi_identifiers          # another library function: fine
    return float(np.exp((n - 1) * np.log1p(-1 / m))) + 0 * len(DEFAULT_PATE_ORDERS)
""")
    assert_own_work(ns["expected_unique"], L.expected_fraction_unique)
    # but a package ban covers every function and module from it, not its constants
    with pytest.raises(AssertionError, match=r"expected_unique uses L from dpteach"):
        assert_own_work(ns["expected_unique"], "dpteach")
    ns = notebook("""
import numpy as np
from dpteach.pate.analysis import DEFAULT_PATE_ORDERS
def best(r):
    return min(r + np.log(1e5) / (a - 1) for a in DEFAULT_PATE_ORDERS)
""")
    assert_own_work(ns["best"], "dpteach", "fairlearn")


def test_a_package_ban_catches_a_function_imported_by_name():
    ns = notebook("""
from fairlearn.metrics import equalized_odds_difference
def eo_worst_case(y, p, g):
    return equalized_odds_difference(y, p, sensitive_features=g)
""")
    with pytest.raises(AssertionError, match=r"uses equalized_odds_difference from fairlearn"):
        assert_own_work(ns["eo_worst_case"], "dpteach", "fairlearn")


def test_names_used_reports_attributes_and_globals():
    ns = notebook("""
import math
from dpteach.attacks import linkage as L
def f(x):
    return math.sqrt(x) + L.expected_fraction_unique(2, 3)
""")
    used = names_used(ns["f"])
    assert used["math"] is math and used["L"] is L
    assert "sqrt" in used and "expected_fraction_unique" in used
    assert used["expected_fraction_unique"] is None        # an attribute, not a global


def test_bad_input_is_refused_clearly():
    honest = notebook(HONEST)["expected_unique"]
    with pytest.raises(TypeError, match="func must be a Python function .* of type ufunc"):
        assert_own_work(np.sqrt, L.expected_fraction_unique)
    with pytest.raises(TypeError, match="answers must be functions or package names; got "
                                        "answers containing 3"):
        assert_own_work(honest, 3)
    with pytest.raises(ParameterError, match="answers must name at least one"):
        assert_own_work(honest)
    with pytest.raises(ParameterError, match="dotted package names .* got answers containing "
                                             "'dpteach.'"):
        assert_own_work(honest, "dpteach.")


def _own_work(func, answers):                      # the one-answer form, for call_rejects
    return assert_own_work(func, answers)


NOT_A_FUNCTION = st.one_of(st.integers(), st.floats(), st.text(max_size=5), st.none(),
                           st.sampled_from([np.sqrt, len, print, str, [L.expected_fraction_unique],
                                            L]))


def test_bad_arguments_are_named_property():
    honest = notebook(HONEST)["expected_unique"]
    assert_rejects_bad_values(_own_work, {"func": honest, "answers": L.expected_fraction_unique},
                              "func", NOT_A_FUNCTION)
    assert_rejects_bad_values(names_used, {"func": honest}, "func", NOT_A_FUNCTION)
    assert_rejects_bad_values(
        _own_work, {"func": honest, "answers": "dpteach"}, "answers",
        st.one_of(st.integers(), st.floats(), st.none(),
                  st.sampled_from(["", ".", "1x", "dpteach.", "a b", "a-b", "*"])))
    assert_rejects_bad_values(
        assert_own_work, {"func": honest, "exercise": "q1"}, "exercise",
        st.one_of(st.integers(), st.floats(), st.none(), st.lists(st.text(), max_size=2)))
