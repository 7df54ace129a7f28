"""``dpteach.exercises.assert_own_work``: the check that an exercise's answer is not a call
to the library function it is compared with.

Each case is a way a student could write the function: the honest ones must pass, each
shortcut (a call through the module, an alias, a helper cell, a lambda, a closure, a
partial) must fail with a message naming the function and what it used.
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np
import pytest
from _props import assert_rejects_bad_values
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.attacks import linkage as L
from dpteach import exercises
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
    with pytest.raises(TypeError, match=r"answers must be one or more functions or package "
                                        r"names \('dpteach'\); got answers=\(3,\)"):
        assert_own_work(honest, 3)
    with pytest.raises(ParameterError, match=r"answers must be one or more .*; got answers=\(\)"):
        assert_own_work(honest)
    with pytest.raises(ParameterError, match=r"answers must be one or more .*; got "
                                             r"answers=\('dpteach.',\)"):
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


# ------------------------------------------- the shapes a student's function can take
# Helpers that call each other in a cycle, lambdas nested deep, thousands of names, the
# library function hidden in a default argument, a closure cell still empty, a partial of a
# bound method, a namespace whose ``__builtins__`` is a module or absent: each must answer
# (and catch the library call wherever it hides) without recursing forever.
ANSWER = L.expected_fraction_unique
MESSAGE = "calls expected_fraction_unique, the library function that gives the answer"


def run(source: str, builtins=True) -> dict:
    namespace: dict = {} if builtins else {"__builtins__": {}}
    exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


def test_helpers_calling_each_other_in_a_cycle_terminate():
    ns = run("""
from dpteach.attacks import linkage as L
def even(n, m):
    return 1.0 if n == 0 else odd(n - 1, m)
def odd(n, m):
    return L.expected_fraction_unique(n, m) if n == 1 else even(n - 1, m)
""")
    assert set(names_used(ns["even"])) >= {"odd", "even", "L", "expected_fraction_unique"}
    with pytest.raises(AssertionError, match="even " + MESSAGE):
        assert_own_work(ns["even"], ANSWER)


def test_lambdas_nested_fifty_deep():
    body = "L.expected_fraction_unique(n, m)"
    for _ in range(50):
        body = f"(lambda: {body})()"
    ns = run(f"from dpteach.attacks import linkage as L\ndef f(n, m):\n    return {body}\n")
    assert ns["f"](3, 4) == ANSWER(3, 4)
    with pytest.raises(AssertionError, match=MESSAGE):
        assert_own_work(ns["f"], ANSWER)


def test_five_thousand_global_names():
    names = [f"v{i}" for i in range(5000)]
    ns = run("\n".join(f"{n} = {i}" for i, n in enumerate(names))
             + "\ndef f(n, m):\n    return sum((" + ", ".join(names) + "))\n")
    used = names_used(ns["f"])
    assert len(used) == 5001 and used["v4999"] == 4999 and used["sum"] is sum
    assert_own_work(ns["f"], ANSWER, "dpteach")


@pytest.mark.parametrize("source", [
    "def f(n, m, g=L.expected_fraction_unique):\n    return g(n, m)\n",
    "def f(n, m, *, g=L.expected_fraction_unique):\n    return g(n, m)\n",
    "def f(n, m, lib=L):\n    return lib.expected_fraction_unique(n, m)\n",
], ids=["default", "keyword-only default", "module as default"])
def test_the_answer_hidden_in_a_default_argument_is_caught(source):
    ns = run("from dpteach.attacks import linkage as L\n" + source)
    with pytest.raises(AssertionError, match=r"f (calls expected_fraction_unique|uses \w+ from "
                                             r"dpteach)"):
        assert_own_work(ns["f"], ANSWER, "dpteach")


def test_an_empty_closure_cell_and_a_partial_of_a_bound_method():
    def outer():
        def inner(n, m):
            return later(n, m)          # noqa: F821 - bound after inner is made
        cells = inner
        later = ANSWER
        return cells

    with pytest.raises(AssertionError, match=MESSAGE):
        assert_own_work(outer(), ANSWER)

    def unbound():
        def inner():
            return never                 # noqa: F821 - the cell stays empty
        return inner
        never = 1                        # noqa: F841

    assert "never" not in names_used(unbound())

    class Student:
        def expected_unique(self, n, m):
            return L.expected_fraction_unique(n, m)

    wrapped = functools.partial(functools.partial(Student().expected_unique, 10), 100)
    with pytest.raises(AssertionError, match="expected_unique " + MESSAGE):
        assert_own_work(wrapped, ANSWER)


def test_builtins_as_a_module_or_absent():
    import builtins
    ns = {"__builtins__": builtins}
    exec("def f(x):\n    return len(x) + abs(-1)\n", ns)
    assert names_used(ns["f"])["len"] is len
    ns = run("def f(x):\n    return len(x)\n", builtins=False)
    assert names_used(ns["f"]) == {"len": None}
    assert_own_work(ns["f"], ANSWER, "dpteach", "fairlearn", exercise="")


def test_peak_memory_is_the_kernels_own_not_its_parents():
    # a notebook's memory check runs in a kernel that a large process (a test runner deep in
    # a long run) started: Linux carries ru_maxrss over fork and execve, so the kernel would
    # report its parent's peak (CI failed eight notebooks' "< 1 GB" checks that way);
    # peak_memory_mib reads the kernel's own high-water mark
    import subprocess
    import sys

    import numpy as np

    from dpteach.exercises import peak_memory_mib

    ballast = np.ones(32 * 2**20)                      # 256 MiB in this (the parent) process
    child = ("import resource; from dpteach.exercises import peak_memory_mib; "
             "print(peak_memory_mib(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    own, inherited = map(float, subprocess.run([sys.executable, "-c", child], check=True,
                                               capture_output=True, text=True).stdout.split())
    assert ballast.sum() > 0 and peak_memory_mib() > 256
    if sys.platform.startswith("linux"):
        assert inherited > 256          # the old measure: the parent's peak (the defect)
    assert own < 200                    # the child's own: an interpreter and dpteach


# ---------------------------------------------------- show_feedback_first: a failed check's display
# Real otter results: an exception-based test file (the format otter assign writes into a
# student edition's metadata) run against a namespace, as grader.check does.
OTTER_TESTS = '''
from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 1

@test_case(points=None, hidden=False)
def test_q1_rate(rate):
    assert rate is not None and rate is not ..., "not done yet: replace the ... in rate = ..."
    got = rate + 0
    assert abs(got - 0.25) < 1e-9, f"ten reports, six yes (γ = 0.1): your rate is {got}"

@test_case(points=None, hidden=False)
def test_q1_in_range(rate):
    assert 0 <= rate <= 1, f"a rate lies in [0, 1], got {rate}"
'''


def _checked(rate):
    from otter.test_files.exception_test import ExceptionTestFile

    result = ExceptionTestFile.from_string(OTTER_TESTS, path="q1.py")
    result.run({"rate": rate})
    return result


def _displayed(rate, monkeypatch) -> tuple[str, str]:
    """(text/plain, text/html) IPython shows for the check of ``rate`` after
    show_feedback_first()."""
    from IPython.core.formatters import DisplayFormatter

    shell = type("Shell", (), {"display_formatter": DisplayFormatter()})()
    monkeypatch.setattr(builtins, "get_ipython", lambda: shell, raising=False)
    assert exercises.show_feedback_first() is True
    shown, _ = shell.display_formatter.format(_checked(rate))
    return shown["text/plain"], shown.get("text/html", "")


def test_installed_otter_is_the_version_the_display_was_written_for():
    from importlib.metadata import version

    # dpteach.exercises._OTTER_FAILURE reads otter 7.0.0's message format; on another
    # version otter's own display stays (next test), so re-check the format and update this
    assert version("otter-grader") == "7.0.0"


def test_otters_own_display_puts_the_assert_line_first():
    """What the display replaces (and what grading keeps): otter's message."""
    message = _checked(0.5).test_case_results[0].message
    assert message.splitlines()[1].startswith("Error at line")
    assert message.splitlines()[2].strip().startswith("assert abs(got - 0.25)")
    assert exercises._OTTER_FAILURE.fullmatch(message)


def test_a_failed_check_shows_its_message_first_once(monkeypatch):
    text, markup = _displayed(0.5, monkeypatch)
    assert text.splitlines() == ["❌ ten reports, six yes (γ = 0.1): your rate is 0.5",
                                 "q1 results: 1 of 2 tests passed"]
    assert markup.startswith("<p style='white-space: pre-wrap; margin: 0 0 0.4em 0'>"
                             "❌ ten reports, six yes (γ = 0.1): your rate is 0.5</p>")
    assert markup.count("your rate is") == 1 and "assert" not in markup
    assert markup.endswith("q1 results: 1 of 2 tests passed</p>")


def test_every_failed_case_is_listed_and_html_is_escaped(monkeypatch):
    text, markup = _displayed(2, monkeypatch)            # fails both cases
    assert text.splitlines() == ["❌ ten reports, six yes (γ = 0.1): your rate is 2",
                                 "❌ a rate lies in [0, 1], got 2",
                                 "q1 results: 0 of 2 tests passed"]
    text, markup = _displayed(..., monkeypatch)          # the untouched scaffold
    assert text.count("❌ not done yet: replace the ... in rate = ...") == 1
    assert text.splitlines()[1].startswith("❌ TypeError: ")    # otter strips the quotes at
    assert "not supported between instances" in text          # the ends of an error's text
    _, markup = _displayed("<b>", monkeypatch)          # (not "int") to str: escaped
    assert "(not &quot;int&quot;)" in markup and '"int"' not in markup


def test_an_error_names_the_line_that_raised_unless_it_is_an_assert(monkeypatch):
    text, _ = _displayed("0.5", monkeypatch)             # a string: `rate + 0` raises
    lines = text.splitlines()
    assert lines[0].startswith("❌ TypeError: can only concatenate str")
    assert lines[1] == "   (raised by the test's line: got = rate + 0)"
    assert lines[2].startswith("❌ TypeError: ") and "not supported" in lines[2]  # an assert:
    assert not any(line.strip().startswith("assert") for line in lines)   # not shown
    assert lines[-1] == "q1 results: 0 of 2 tests passed"


def test_a_pass_or_an_unknown_format_keeps_otters_display(monkeypatch):
    text, markup = _displayed(0.25, monkeypatch)
    assert text == "q1 results: All test cases passed!" and "passed!" in markup
    result = _checked(0.5)
    result.test_case_results[0].message = "❌ Test case failed\nsomething else"  # another otter
    assert exercises._feedback_text(result) == repr(result)
    assert exercises._feedback_html(result) == result._repr_html_()


def test_outside_ipython_nothing_is_installed(monkeypatch):
    monkeypatch.delattr(builtins, "get_ipython", raising=False)
    assert exercises.show_feedback_first() is False
