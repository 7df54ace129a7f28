"""Legal-but-unusual inputs for ``dpteach.exercises``: the shapes a student's function can take.

``assert_own_work`` and ``names_used`` take functions, not numbers, so the extremes here are
of code: helpers that call each other in a cycle, lambdas nested deep, thousands of names,
the library function hidden in a default argument or a keyword-only default, a closure cell
that is still empty, a partial of a bound method, a namespace whose ``__builtins__`` is a
module (as in a script) or absent (as under ``exec`` with a bare dict). Each must answer
(and catch the library call wherever it hides) without recursing forever.
"""

from __future__ import annotations

import functools

import pytest

from dpteach import exercises as E
from dpteach.attacks import linkage as L

MODULES = (E,)
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
    assert set(E.names_used(ns["even"])) >= {"odd", "even", "L", "expected_fraction_unique"}
    with pytest.raises(AssertionError, match="even " + MESSAGE):
        E.assert_own_work(ns["even"], ANSWER)


def test_lambdas_nested_fifty_deep():
    body = "L.expected_fraction_unique(n, m)"
    for _ in range(50):
        body = f"(lambda: {body})()"
    ns = run(f"from dpteach.attacks import linkage as L\ndef f(n, m):\n    return {body}\n")
    assert ns["f"](3, 4) == ANSWER(3, 4)
    with pytest.raises(AssertionError, match=MESSAGE):
        E.assert_own_work(ns["f"], ANSWER)


def test_five_thousand_global_names():
    names = [f"v{i}" for i in range(5000)]
    ns = run("\n".join(f"{n} = {i}" for i, n in enumerate(names))
             + "\ndef f(n, m):\n    return sum((" + ", ".join(names) + "))\n")
    used = E.names_used(ns["f"])
    assert len(used) == 5001 and used["v4999"] == 4999 and used["sum"] is sum
    E.assert_own_work(ns["f"], ANSWER, "dpteach")


@pytest.mark.parametrize("source", [
    "def f(n, m, g=L.expected_fraction_unique):\n    return g(n, m)\n",
    "def f(n, m, *, g=L.expected_fraction_unique):\n    return g(n, m)\n",
    "def f(n, m, lib=L):\n    return lib.expected_fraction_unique(n, m)\n",
], ids=["default", "keyword-only default", "module as default"])
def test_the_answer_hidden_in_a_default_argument_is_caught(source):
    ns = run("from dpteach.attacks import linkage as L\n" + source)
    with pytest.raises(AssertionError, match=r"f (calls expected_fraction_unique|uses \w+ from "
                                             r"dpteach)"):
        E.assert_own_work(ns["f"], ANSWER, "dpteach")


def test_an_empty_closure_cell_and_a_partial_of_a_bound_method():
    def outer():
        def inner(n, m):
            return later(n, m)          # noqa: F821 - bound after inner is made
        cells = inner
        later = ANSWER
        return cells

    with pytest.raises(AssertionError, match=MESSAGE):
        E.assert_own_work(outer(), ANSWER)

    def unbound():
        def inner():
            return never                 # noqa: F821 - the cell stays empty
        return inner
        never = 1                        # noqa: F841

    assert "never" not in E.names_used(unbound())

    class Student:
        def expected_unique(self, n, m):
            return L.expected_fraction_unique(n, m)

    wrapped = functools.partial(functools.partial(Student().expected_unique, 10), 100)
    with pytest.raises(AssertionError, match="expected_unique " + MESSAGE):
        E.assert_own_work(wrapped, ANSWER)


def test_builtins_as_a_module_or_absent():
    import builtins
    ns = {"__builtins__": builtins}
    exec("def f(x):\n    return len(x) + abs(-1)\n", ns)
    assert E.names_used(ns["f"])["len"] is len
    ns = run("def f(x):\n    return len(x)\n", builtins=False)
    assert E.names_used(ns["f"]) == {"len": None}
    E.assert_own_work(ns["f"], ANSWER, "dpteach", "fairlearn", exercise="")
